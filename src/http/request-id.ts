import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/**
 * Request ids are ours, never the client's: an id a client could choose could also be
 * chosen to collide with, or forge, another request's log lines.
 */
export const requestIdOptions = { genReqId: () => randomUUID(), requestIdHeader: false as const };

/**
 * Every answer names its request id and refuses content sniffing, plus any `fixed` headers
 * the listener adds; one hook in callback form, as it runs on every answer.
 */
export function registerResponseHeaders(app: FastifyInstance, fixed: Record<string, string> = {}): void {
  const headers = Object.entries({ 'x-content-type-options': 'nosniff', ...fixed });
  app.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('x-request-id', request.id);
    for (const [name, value] of headers) void reply.header(name, value);
    done(null, payload);
  });
}
