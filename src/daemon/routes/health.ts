import { z } from 'zod';
import { ErrorBodySchema } from '../openapi.js';
import { defineRoute } from '../route.js';
import type { DaemonDeps } from '../deps.js';

const Status = z.object({ status: z.string() });

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
        200: { description: 'ready', schema: Status },
        503: {
          description: 'not ready; the reason says why',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ reply, request }) => {
        const problem = await deps.readiness();
        if (problem !== undefined) {
          // Anyone may ask: the answer names the part, the log names the file and tenant.
          request.log.warn({ detail: problem.detail }, `not ready: ${problem.reason}`);
          return reply.status(503).send({ code: 'unavailable', reason: problem.reason });
        }
        return { status: 'ready' };
      },
    }),
  ];
}
