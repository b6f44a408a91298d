import { z } from 'zod';
import { codesOfKind, ERROR_CODES, type ErrorCode } from '../core/errors.js';
import { answersAtKindStatus, statusOfKind } from './error-mapping.js';
import type { AnyRoute } from './route.js';

export const ErrorBodySchema = z
  .object({
    code: z.string().describe('stable, machine-readable'),
    reason: z.string().describe('for humans'),
    remedy: z.string().optional().describe('the smallest satisfying change, when it can be named'),
    field: z.string().optional().describe('the request field at fault'),
    request_id: z.string().optional().describe('on 5xx: the id under which the daemon logged the details'),
  })
  .meta({ id: 'Error' });

/** The codes an error body can carry at one HTTP status (all statuses without one). */
export function errorCodesAt(status?: number): ErrorCode[] {
  return ERROR_CODES.filter((k) => status === undefined || statusOfKind(k) === status)
    .flatMap(codesOfKind)
    .filter((c) => status === undefined || answersAtKindStatus(c));
}

/** What `{code, reason, ...}` looks like at one status: its code is one of that status's codes. */
function errorComponent(status?: number): Record<string, unknown> {
  return {
    type: 'object',
    description: status === undefined ? 'every error body' : `an error body with HTTP ${status}`,
    properties: {
      code: { type: 'string', enum: errorCodesAt(status), description: 'stable, machine-readable' },
      reason: { type: 'string', description: 'for humans; never echoes the request' },
      remedy: { type: 'string', description: 'the smallest satisfying change, when it can be named' },
      field: { type: 'string', description: 'the request field at fault' },
      request_id: { type: 'string', description: 'on 5xx: the id under which the daemon logged the details' },
    },
    required: ['code', 'reason'],
    additionalProperties: false,
  };
}

const ERROR_STATUSES = [400, 401, 403, 404, 409, 413, 500, 503];

const errorRef = (status: number) => ({
  content: { 'application/json': { schema: { $ref: `#/components/schemas/Error${status}` } } },
});

/** Answers every route can give besides its own, documented once here. */
function commonResponses(r: AnyRoute): Record<string, unknown> {
  const out: Record<string, unknown> = {
    400: { description: 'a request field is invalid; the body names it', ...errorRef(400) },
    500: { description: 'an unexpected failure; the body carries only the request id', ...errorRef(500) },
  };
  if (r.auth === 'token') {
    out[401] = { description: 'missing, unknown, expired or revoked credential', ...errorRef(401) };
  }
  // Any POST body is read up to the limit, whether or not the route uses one, unless the
  // route answers before the body is read.
  if (r.method === 'POST' && !r.beforeBody) {
    out[413] = { description: 'the body is larger than the daemon accepts', ...errorRef(413) };
  }
  if (r.url !== '/healthz') {
    out[503] = { description: 'the store is busy or unavailable; nothing was committed', ...errorRef(503) };
  }
  return out;
}

/** Named schemas (zod `.meta({ id })`) collected as OpenAPI components while paths are built. */
type Components = Record<string, unknown>;

function jsonSchema(
  schema: z.ZodType,
  io: 'input' | 'output',
  components?: Components,
): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' });
  // Named schemas live under components, where every path can refer to them; a named
  // schema may refer to another, so its own references move too.
  const s = JSON.parse(JSON.stringify(generated).replaceAll('"#/$defs/', '"#/components/schemas/')) as Record<
    string,
    unknown
  >;
  delete s.$schema;
  const defs = s.$defs as Record<string, unknown> | undefined;
  delete s.$defs;
  if (defs) Object.assign(components ?? {}, defs);
  return s;
}

function parameters(
  schema: z.ZodType | undefined,
  where: 'query' | 'path',
  components: Components,
): unknown[] {
  if (!schema) return [];
  const s = jsonSchema(schema, 'input', components) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  return Object.entries(s.properties ?? {}).map(([name, prop]) => {
    const { description, deprecated, ...rest } = prop;
    return {
      name,
      in: where,
      required: where === 'path' || (s.required ?? []).includes(name),
      ...(description !== undefined ? { description } : {}),
      ...(deprecated === true ? { deprecated: true } : {}),
      schema: rest,
    };
  });
}

/**
 * A request the daemon SENDS (OpenAPI 3.1 `webhooks`): its headers and body as zod schemas,
 * and what the receiver's answers mean.
 */
export interface WebhookSpec {
  /** the key under `webhooks` (the event type) */
  name: string;
  summary: string;
  description: string;
  headers: z.ZodObject;
  body: z.ZodType;
  /** by status (`2XX`, `410`, `default`) */
  responses: Record<string, { description: string }>;
}

/** One `webhooks` entry: a POST the receiver's endpoint takes, as a path item. */
function webhookItem(w: WebhookSpec, components: Components): Record<string, unknown> {
  const headers = jsonSchema(w.headers, 'output', components) as {
    properties: Record<string, Record<string, unknown>>;
  };
  return {
    post: {
      operationId: `webhook${w.name.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      summary: w.summary,
      description: w.description,
      tags: ['Webhooks'],
      parameters: Object.entries(headers.properties).map(([name, prop]) => {
        const { description, ...schema } = prop;
        return { name, in: 'header', required: true, ...(description ? { description } : {}), schema };
      }),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: jsonSchema(w.body, 'output', components) } },
      },
      responses: w.responses,
    },
  };
}

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. */
export function openApiDocument(
  routes: readonly AnyRoute[],
  info: { version: string; webhooks?: readonly WebhookSpec[] },
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Components = {};
  for (const r of routes) {
    const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}');
    const responses: Record<string, unknown> = commonResponses(r);
    for (const [status, res] of Object.entries(r.responses)) {
      // An error body at this status is that status's Error, with its codes as an enum.
      const schema = res.schema
        ? (JSON.parse(
            JSON.stringify(jsonSchema(res.schema, 'output', components)).replaceAll(
              '"#/components/schemas/Error"',
              `"#/components/schemas/Error${status}"`,
            ),
          ) as Record<string, unknown>)
        : undefined;
      responses[status] = {
        description: res.description,
        ...(schema ? { content: { 'application/json': { schema } } } : {}),
      };
    }
    const op: Record<string, unknown> = {
      operationId:
        r.operationId ??
        `${r.method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      summary: r.summary,
      ...(r.mountedOnlyWith
        ? { description: `Mounted only when the daemon runs with ${r.mountedOnlyWith}; otherwise 404.` }
        : {}),
      tags: [r.tag],
      parameters: [...parameters(r.params, 'path', components), ...parameters(r.query, 'query', components)],
      responses,
      security: r.auth === 'token' ? [{ bearerAuth: [] }, { svcToken: [] }, { mutualTLS: [] }] : [],
      ...(r.deprecated ? { deprecated: true } : {}),
      ...(r.mountedOnlyWith ? { 'x-svc-mounted-only-with': r.mountedOnlyWith } : {}),
    };
    if (r.body) {
      op.requestBody = {
        required: true,
        content: { 'application/json': { schema: jsonSchema(r.body, 'input', components) } },
      };
    }
    if (r.rawBody) {
      op.requestBody = {
        required: true,
        content: Object.fromEntries(
          Object.entries(r.rawBody).map(([media, schema]) => [
            media,
            { schema: jsonSchema(schema, 'input', components) },
          ]),
        ),
      };
    }
    paths[path] = { ...(paths[path] ?? {}), [r.method.toLowerCase()]: op };
  }
  const webhooks =
    info.webhooks && Object.fromEntries(info.webhooks.map((w) => [w.name, webhookItem(w, components)]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc daemon',
      version: info.version,
      description:
        'Governs what software agents may do: decisions against policy, permissions and budget, sealed in a tamper-evident journal.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: 'https://127.0.0.1:8090' }],
    paths,
    ...(webhooks ? { webhooks } : {}),
    components: {
      // Written out rather than generated: zod renders a named schema as a reference to
      // itself, which a validator follows forever.
      schemas: {
        ...components,
        Error: errorComponent(),
        ...Object.fromEntries(ERROR_STATUSES.map((st) => [`Error${st}`, errorComponent(st)])),
      },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <token>' },
        svcToken: { type: 'apiKey', in: 'header', name: 'X-SVC-Token' },
        mutualTLS: {
          type: 'mutualTLS',
          description: 'a client certificate whose subject maps to a registered actor',
        },
      },
    },
  };
}
