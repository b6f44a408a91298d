import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { parseToken } from '../core/token.js';
import { stdoutLogStream } from './log-stream.js';

/** A path segment that carries a token's mark, however percent-encoded (case-insensitive). */
const TOKEN_MARK = /svct_/i;

/** Percent-decoding, sequence by sequence and repeated, so no encoding hides the mark. */
function decodedForLog(segment: string): string {
  let text = segment;
  for (let i = 0; i < 3 && text.includes('%'); i++) {
    text = text.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return text;
}

function loggedSegment(segment: string): string {
  const text = decodedForLog(segment);
  return TOKEN_MARK.test(text) || parseToken(text) !== undefined ? '[redacted]' : segment;
}

/**
 * The request target a log line may hold: the path only, and no path segment shaped like
 * a token. A query string can carry a credential (`?access_token=`), a token pasted into a
 * path (`GET /v1/task/svct_...`) is one, and no one reads the log to learn it.
 */
export function loggedUrl(url: string): string {
  const q = url.indexOf('?');
  let path = q === -1 ? url : url.slice(0, q);
  // Most paths carry neither a mark nor an escape: they are logged without being split.
  if (/svct|%/i.test(path)) path = path.split('/').map(loggedSegment).join('/');
  return q === -1 ? path : `${path}?[redacted]`;
}

/**
 * pino options for a listener, or false for silence (tests). Credentials never reach a
 * log line: the credential headers are censored whatever a serializer is later changed to
 * print, and the query string is never printed. Lines go to stdout a turn of the event loop
 * at a time (log-stream.ts), unless the options name a stream or a file of their own.
 */
export function loggerOptions(
  logger: boolean | Record<string, unknown> | undefined,
): false | Record<string, unknown> {
  if (logger === false) return false;
  const own = typeof logger === 'object' && (logger.stream !== undefined || logger.file !== undefined);
  return {
    ...(own ? {} : { stream: stdoutLogStream() }),
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
