import type { FastifyInstance } from 'fastify';
import { parseJsonText } from '../core/json-text.js';

/**
 * The daemon's one JSON body parser: every JSON route reads its body through the I-JSON
 * guard (depth, duplicate keys, non-finite numbers, UTF-8), so no route can forget it.
 * It replaces fastify's parser, whose prototype-poisoning refusal the guard also carries.
 */
export function useGuardedJson(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonText(body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
