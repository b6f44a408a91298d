import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * The request target a log line may hold: the path only. A query string can carry a
 * credential (`?access_token=`), and no one reads the log to learn it.
 */
export function loggedUrl(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : `${url.slice(0, q)}?[redacted]`;
}

/**
 * pino options for a listener, or false for silence (tests). Credentials never reach a
 * log line: the credential headers are censored whatever a serializer is later changed to
 * print, and the query string is never printed.
 */
export function loggerOptions(
  logger: boolean | Record<string, unknown> | undefined,
): false | Record<string, unknown> {
  if (logger === false) return false;
  return {
    level: 'info',
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-svc-token"]', 'req.headers.cookie'],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: loggedUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
    ...(typeof logger === 'object' ? logger : {}),
  };
}

/**
 * One log line per request, written when it is answered (method, path, status, time), in
 * place of fastify's two (one on arrival, one on completion): on the decision path every
 * serialised line is a cost paid per decision, and the arrival line says nothing the
 * completion line does not. Unknown routes get no extra "not found" line either (that one
 * would print the raw URL, query string included).
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    if (error) {
      reply.log.error(
        { req: request, res: reply, err: error, responseTime: reply.elapsedTime },
        'request errored',
      );
    } else {
      reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    }
  }
}
