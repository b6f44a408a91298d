import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { SvcError } from '../core/errors.js';
import { firstRefusedText, refusedTextError } from '../core/request-text.js';
import type { Caller } from './caller.js';

/**
 * A route is declared once: its zod schemas validate the request, type the handler and
 * generate the OpenAPI document, so the three can never disagree.
 */
export interface RouteSpec<
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
> {
  method: 'GET' | 'POST';
  /** fastify syntax: `/v1/task/:id` */
  url: string;
  summary: string;
  /** the OpenAPI operationId; the SDKs name their methods after it (agent-facing routes set it) */
  operationId?: string;
  tag: string;
  auth: 'none' | 'token';
  body?: B;
  /**
   * A precompiled check for the hot routes: the schema's output for a body the schema
   * certainly accepts (lone surrogates included), else undefined and the body takes the
   * scan and the schema as usual, so refusals keep their exact message and field.
   */
  acceptBody?: (value: unknown) => z.output<B> | undefined;
  /**
   * The body is not parsed: the handler gets its exact bytes as a Buffer (a signature may
   * cover them), whatever the media type. The map documents each media type accepted.
   */
  rawBody?: Record<string, z.ZodType>;
  /**
   * Runs once the caller is authenticated and before the body is read or parsed: a route
   * whose answer cannot depend on its body (federate) refuses here, whatever was sent.
   */
  beforeBody?: (caller: Caller) => void;
  query?: Q;
  params?: P;
  responses: Record<number, { description: string; schema?: z.ZodType }>;
  deprecated?: boolean;
  /** mounted only with this (e.g. "an integration-operations document"); documented as such */
  mountedOnlyWith?: string;
  /**
   * The reply shows only what the handler's own commit-queue transaction read and wrote,
   * and the queue answers once that commit is durable: no read barrier (see `mountRoutes`).
   */
  durableByCommit?: boolean;
  handler: (ctx: RouteContext<z.output<B>, z.output<Q>, z.output<P>>) => Promise<unknown>;
}

export interface RouteContext<B, Q, P> {
  caller: Caller;
  body: B;
  query: Q;
  params: P;
  request: FastifyRequest;
  reply: FastifyReply;
}

// Each spec keeps its own schema types; the table only needs them as a family.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteSpec<any, any, any>;

export function defineRoute<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType>(
  spec: RouteSpec<B, Q, P>,
): AnyRoute {
  return spec;
}

/** The first offending field named, with what was expected. */
export function zodFailure(where: string, error: z.ZodError): SvcError {
  const issue = error.issues[0];
  if (!issue) return new SvcError('invalid_request', `${where}: invalid`);
  let path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    path = [...issue.path.map(String), issue.keys[0]].filter(Boolean).join('.');
    return new SvcError('invalid_request', `${path}: unknown field`, { field: path });
  }
  const field = path === '' ? where : path;
  return new SvcError('invalid_request', `${field}: ${issue.message.replace(/^Invalid input: /, '')}`, {
    field,
  });
}

function parsePart(where: string, schema: z.ZodType | undefined, value: unknown): unknown {
  // Checked whether or not the route reads this part: no refused text passes any edge.
  const bad = firstRefusedText(value, '');
  if (bad !== undefined) {
    throw refusedTextError(bad.path === '' ? where : bad.path.replace(/^\./, ''), bad.nul);
  }
  if (!schema) return value;
  const r = schema.safeParse(value ?? (where === 'body' ? undefined : {}));
  if (!r.success) throw zodFailure(where, r.error);
  return r.data;
}

/** Undefined when every commit so far is durable, else settles once it is (Store.durable). */
export type DurableBarrier = () => Promise<void> | undefined;

function toFastify(
  spec: AnyRoute,
  authenticate: (request: FastifyRequest) => Promise<Caller>,
  durable: DurableBarrier,
) {
  return {
    method: spec.method,
    url: spec.url,
    // Authentication comes before the body is read: a caller without a credential learns
    // nothing from how its body would have been judged, and costs no parsing.
    ...(spec.auth === 'token'
      ? {
          onRequest: async (request: FastifyRequest) => {
            request.caller = await authenticate(request);
          },
        }
      : {}),
    ...(spec.beforeBody
      ? {
          preParsing: async (request: FastifyRequest) => {
            spec.beforeBody?.(request.caller as Caller);
          },
        }
      : {}),
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const ctx = {
        caller: request.caller as Caller,
        body: spec.rawBody
          ? ((request.body as Buffer | undefined) ?? Buffer.alloc(0))
          : (spec.acceptBody?.(request.body) ?? parsePart('body', spec.body, request.body)),
        query: parsePart('query', spec.query, request.query),
        params: parsePart('path', spec.params, request.params),
        request,
        reply,
      };
      const result = await spec.handler(ctx);
      if (!spec.durableByCommit) await durable();
      return result;
    },
  };
}

/**
 * Mount the table. `durable` is the read barrier: a SQLite commit is visible before its
 * fsync ends (the commit queue syncs off the event loop), so a reply waits until what it
 * may show is durable; nothing a client is shown can then be lost to a crash.
 */
export function mountRoutes(
  app: FastifyInstance,
  routes: readonly AnyRoute[],
  authenticate: (request: FastifyRequest) => Promise<Caller>,
  durable: DurableBarrier = () => undefined,
): void {
  for (const spec of routes) if (!spec.rawBody) app.route(toFastify(spec, authenticate, durable));
  const raw = routes.filter((r) => r.rawBody);
  if (raw.length === 0) return;
  // Raw-body routes live in their own scope, so their catch-all parser never touches the JSON routes.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    for (const spec of raw) scope.route(toFastify(spec, authenticate, durable));
  });
}
