import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { SvcError } from '../core/errors.js';
import { httpStatus } from './error-mapping.js';

/**
 * What node's HTTP parser refused, in the coded family. The parser's own messages are not
 * passed on: they are written for node's developers, and a reason never echoes input.
 */
function parserRefusal(code: string | undefined): SvcError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new SvcError(
        'invalid_request',
        'headers: the request headers are larger than the listener accepts',
        {
          code: 'headers_too_large',
          field: 'headers',
          remedy: 'send fewer or shorter headers',
        },
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new SvcError('invalid_request', 'request: the request did not arrive in time', {
        code: 'request_timeout',
        field: 'request',
      });
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return new SvcError('invalid_request', 'content-length: expected one length in decimal digits', {
        code: 'bad_request',
        field: 'content-length',
      });
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new SvcError('invalid_request', 'transfer-encoding: expected well-formed chunked framing', {
        code: 'bad_request',
        field: 'transfer-encoding',
      });
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_HEADER_VALUE':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return new SvcError(
        'invalid_request',
        'headers: expected header names and values of characters HTTP allows (no NUL or control character)',
        { code: 'bad_request', field: 'headers' },
      );
    default:
      return new SvcError(
        'invalid_request',
        'request: expected an HTTP/1.1 request line (method, path, version) and headers',
        { code: 'bad_request', field: 'request' },
      );
  }
}

/** node's in-flight response on a socket, if any (what its own clientError default checks). */
interface HttpSocket extends Socket {
  _httpMessage?: { headersSent?: boolean } | null;
}

/**
 * fastify's `clientErrorHandler`: a request the HTTP parser refuses (headers over the
 * limit, NUL in a header, a bad Content-Length) never reaches the app, so it gets its
 * answer here, in the same `{code, reason, field}` body and with a request id, instead of
 * fastify's `{"error":"Bad Request",...}`. The connection is closed afterwards: the parser
 * cannot say where the next request would begin.
 */
export function clientErrorHandler(
  this: FastifyInstance,
  err: Error & { code?: string },
  socket: Socket,
): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const refusal = parserRefusal(err.code);
  const status = httpStatus(refusal);
  const requestId = randomUUID();
  this.log.info(
    { reqId: requestId, parserCode: err.code, statusCode: status },
    'request refused by the HTTP parser',
  );
  // Writing over a response already under way would corrupt it: node's own default checks the same.
  const inFlight = (socket as HttpSocket)._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify(refusal.toBody());
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Bad Request'}\r\n` +
        'content-type: application/json; charset=utf-8\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
        'x-content-type-options: nosniff\r\n' +
        'cache-control: no-store\r\n' +
        'connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};
