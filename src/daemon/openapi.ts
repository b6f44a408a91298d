import { z } from 'zod';
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

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. */
export function openApiDocument(
  routes: readonly AnyRoute[],
  info: { version: string },
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Components = {};
  for (const r of routes) {
    const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}');
    const responses: Record<string, unknown> = {};
    for (const [status, res] of Object.entries(r.responses)) {
      responses[status] = {
        description: res.description,
        ...(res.schema
          ? { content: { 'application/json': { schema: jsonSchema(res.schema, 'output', components) } } }
          : {}),
      };
    }
    if (r.auth === 'token') {
      responses['401'] = {
        description: 'missing, unknown, expired or revoked credential',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    responses['400'] ??= {
      description: 'a request field is invalid; the body names it',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
    const op: Record<string, unknown> = {
      operationId:
        r.operationId ??
        `${r.method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      summary: r.summary,
      tags: [r.tag],
      parameters: [...parameters(r.params, 'path', components), ...parameters(r.query, 'query', components)],
      responses,
      security: r.auth === 'token' ? [{ bearerAuth: [] }, { svcToken: [] }, { mutualTLS: [] }] : [],
      ...(r.deprecated ? { deprecated: true } : {}),
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
    components: {
      // Error is emitted as a reference and its definition lands in components (evaluated
      // first), so the spread after it puts the definition, not a self-reference, under Error.
      schemas: { Error: jsonSchema(ErrorBodySchema, 'output', components), ...components },
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
