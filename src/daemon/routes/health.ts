import { z } from 'zod';
import { defineRoute } from '../route.js';
import type { DaemonDeps } from '../deps.js';

const Status = z.object({ status: z.string() });
const Ready = Status.extend({
  details: z
    .object({
      witnesses: z.object({ configured: z.number().int(), failing: z.number().int() }),
      timestamps: z.object({ authority: z.enum(['rfc3161', 'noop']), failing: z.boolean() }),
    })
    .optional()
    .describe(
      'anchor attestations: how many witnesses failed at the last anchor, whether the timestamp authority did',
    ),
});

export function healthRoutes(deps: DaemonDeps) {
  return [
    defineRoute({
      method: 'GET',
      url: '/healthz',
      summary: 'the process is alive',
      tag: 'Health',
      auth: 'none',
      responses: { 200: { description: 'alive', schema: Status } },
      handler: async () => ({ status: 'ok' }),
    }),
    defineRoute({
      method: 'GET',
      url: '/readyz',
      summary: 'the store is open and writable and every tenant signing key is loaded',
      tag: 'Health',
      auth: 'none',
      responses: {
        200: { description: 'ready', schema: Ready },
        503: {
          description: 'not ready; the reason says why',
          schema: z.object({ code: z.string(), reason: z.string() }),
        },
      },
      handler: async ({ reply }) => {
        const problem = await deps.readiness();
        if (problem !== undefined) return reply.status(503).send({ code: 'unavailable', reason: problem });
        // A failing witness or authority degrades evidence, not decisions: still ready, and said so.
        const details = deps.attestations?.();
        return details === undefined ? { status: 'ready' } : { status: 'ready', details };
      },
    }),
  ];
}
