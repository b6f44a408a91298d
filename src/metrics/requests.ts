import type { FastifyInstance } from 'fastify';
import type { SvcMetrics } from './registry.js';

/**
 * Count every answered request of a listener (the console's): by the route's pattern, never
 * its concrete path, so ids in URLs add no series; a path no route matched is `unmatched`.
 */
export function countRequests(app: FastifyInstance, metrics: SvcMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.request(
      request.routeOptions.url ?? 'unmatched',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
}
