import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isSvcError, SvcError, type ErrorBody, type ErrorCode } from '../core/errors.js';
import { OutageLog } from './outage-log.js';

/** The one place a coded error becomes an HTTP status. */
const STATUS: Record<SvcError['kind'], number> = {
  invalid_request: 400,
  usage: 400,
  payload_too_large: 413,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  already_exists: 409,
  not_initialized: 503,
  unavailable: 503,
  internal: 500,
};

/**
 * Codes HTTP names more exactly than their kind: refusals of node's HTTP parser, answered
 * before any route runs (see client-error.ts), and the MCP facade's refusal of a method
 * (a stateless MCP server must answer GET with 405), so no daemon route documents them.
 */
const CODE_STATUS: Partial<Record<ErrorCode, number>> = {
  headers_too_large: 431,
  request_timeout: 408,
  method_not_allowed: 405,
};

export function httpStatus(err: SvcError): number {
  return CODE_STATUS[err.code] ?? STATUS[err.kind];
}

/** False for the codes answered at a status of their own rather than their kind's. */
export function answersAtKindStatus(code: ErrorCode): boolean {
  return CODE_STATUS[code] === undefined;
}

export function statusOfKind(kind: SvcError['kind']): number {
  return STATUS[kind];
}

/** Fastify's own 4xx failures (bad JSON, wrong media type, body too large) in the coded family. */
function fromFastify(err: FastifyError): SvcError | undefined {
  const status = err.statusCode ?? 500;
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new SvcError('payload_too_large', 'the request body is larger than the daemon accepts', {
      remedy: 'send a smaller body',
    });
  }
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new SvcError('invalid_request', 'content-type: expected application/json', {
      field: 'content-type',
      code: 'unsupported_media_type',
    });
  }
  if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return new SvcError('invalid_request', 'body: expected a JSON object, got an empty body', {
      field: 'body',
    });
  }
  // Parser messages quote the input they choke on: the caller gets the field, not an echo.
  if (status === 400 && (err instanceof SyntaxError || err.code?.startsWith('FST_ERR_CTP'))) {
    return new SvcError('invalid_request', 'body: expected valid JSON', { field: 'body' });
  }
  if (status >= 400 && status < 500) {
    return new SvcError('invalid_request', 'the request is malformed', { code: 'bad_request' });
  }
  return undefined;
}

/** Longest path parameter the router matches; ids and channel names are far shorter. */
export const MAX_PARAM_LENGTH = 200;

/**
 * The router's own refusals (a bad percent-encoding, an over-long path parameter) in the
 * coded family, instead of fastify's default bodies that echo the path.
 */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const reason =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? `path: expected each path parameter to be at most ${MAX_PARAM_LENGTH} characters`
      : 'path: expected a well-formed URL path (a percent-encoding is invalid)';
  errorHandler(new SvcError('invalid_request', reason, { field: 'path' }), request, reply);
}

/** One per process: an outage is one condition, whichever listener or route reports it. */
const outages = new OutageLog();

/**
 * Every error leaves as `{code, reason, remedy?, field?}`. A 5xx body never carries
 * internals: the details go to the log under the request id, which the body names.
 */
export function errorHandler(err: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  const coded = isSvcError(err) ? err : fromFastify(err as FastifyError);
  if (!coded) {
    request.log.error({ err }, 'unhandled error');
    void reply.status(500).send({ code: 'internal', reason: 'internal error', request_id: request.id });
    return;
  }
  const status = httpStatus(coded);
  if (coded.kind === 'unavailable') outages.report(request.log, coded);
  else if (status >= 500) request.log.error({ err }, coded.reason);
  if (status === 401) void reply.header('www-authenticate', 'Bearer realm="svc"');
  const body: ErrorBody & { request_id?: string } = coded.toBody();
  if (status >= 500) body.request_id = request.id;
  void reply.status(status).send(body);
}

/** The error and not-found handlers of a listener: every failure leaves through `errorHandler`. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) => {
    // The path is the caller's input: it is not echoed (a reflected string is a vector).
    errorHandler(
      new SvcError('not_found', 'no such route', { remedy: 'check the method and the path' }),
      request,
      reply,
    );
  });
}
