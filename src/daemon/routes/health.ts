import { z } from 'zod';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute } from '../../http/route.js';
import type { DaemonDeps } from '../deps.js';

const Status = z.object({ status: z.string() });
const Ready = Status.extend({
  details: z
    .object({
      witnesses: z.object({
        configured: z.number().int(),
        failing: z.number().int(),
        refused: z
          .number()
          .int()
          .describe('answers refused since start: not from the pinned witness (wrong id, key or signature)'),
      }),
      timestamps: z.object({ authority: z.enum(['rfc3161', 'noop']), failing: z.boolean() }),
      notifications: z
        .object({
          pending: z.number().int().describe('deliveries waiting to be sent or retried'),
          dead: z.number().int().describe('dead letters waiting for a redeliver'),
          disabled_destinations: z
            .number()
            .int()
            .describe('destinations disabled (a receiver answered 410 Gone, or an administrator)'),
        })
        .optional()
        .describe('the outbound event outbox, over every tenant: counts only'),
    })

    .optional()
    .describe(
      'anchor attestations: how many witnesses failed at the last anchor, whether the timestamp authority did; notification deliveries pending and dead',
    ),
});

/** The reason `/readyz` gives while the daemon stops; stable, for load balancers and scripts. */
export const DRAINING = 'draining: the daemon is stopping and finishes only the requests it has';

export function healthRoutes(deps: DaemonDeps) {
  return [
    defineRoute({
      method: 'GET',
      url: '/healthz',
      operationId: 'health',
      summary: 'the process is alive',
      tag: 'Health',
      auth: 'none',
      responses: { 200: { description: 'alive', schema: Status } },
      handler: async () => ({ status: 'ok' }),
    }),
    defineRoute({
      method: 'GET',
      url: '/readyz',
      operationId: 'ready',
      summary: 'the store is open and writable and every tenant signing key is loaded',
      tag: 'Health',
      auth: 'none',
      responses: {
        200: { description: 'ready', schema: Ready },
        503: {
          description: 'not ready; the reason says why',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ reply, request }) => {
        // A stopping daemon says so first, so a load balancer stops sending at once.
        if (deps.draining?.() === true) {
          return reply.status(503).send({ code: 'unavailable', reason: DRAINING });
        }
        const problem = await deps.readiness();
        if (problem !== undefined) {
          // Anyone may ask: the answer names the part, the log names the file and tenant.
          request.log.warn({ detail: problem.detail }, `not ready: ${problem.reason}`);
          return reply.status(503).send({ code: 'unavailable', reason: problem.reason });
        }
        // A failing witness or authority degrades evidence, and a failing receiver
        // notifications, not decisions: still ready, and said so, in counts only (never a URL
        // or a tenant: anyone may ask).
        const attest = deps.attestations?.();
        if (attest === undefined) return { status: 'ready' };
        let notify;
        try {
          notify = await deps.notifications?.();
        } catch (err) {
          request.log.warn({ err }, 'readyz: cannot count notification deliveries');
        }
        const details = {
          ...attest,
          ...(notify
            ? {
                notifications: {
                  pending: notify.pending,
                  dead: notify.dead,
                  disabled_destinations: notify.disabled,
                },
              }
            : {}),
        };
        return { status: 'ready', details };
      },
    }),
  ];
}
