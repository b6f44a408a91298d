import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/**
 * Request ids are ours, never the client's: an id a client could choose could also be
 * chosen to collide with, or forge, another request's log lines.
 */
export const requestIdOptions = { genReqId: () => randomUUID(), requestIdHeader: false as const };

/** Every answer names its request id and refuses content sniffing. */
export function registerResponseHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
    void reply.header('x-content-type-options', 'nosniff');
  });
}
