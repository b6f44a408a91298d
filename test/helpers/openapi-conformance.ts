import Ajv2020Module, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** What one response broke, or nothing. */
export type Nonconformance = string | undefined;

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/** Any OpenAPI document, as parsed JSON. */
export type OpenApiDoc = object;

type Paths = Record<string, Record<string, Operation>>;

const DOC_ID = 'https://svc.invalid/openapi.json';

/** `/v1/task/{id}` becomes a matcher of concrete paths such as `/v1/task/t1`. */
function pathMatcher(template: string): RegExp {
  const escaped = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${escaped}$`);
}

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/**
 * Checks responses against an OpenAPI 3.1 document: the status must be documented for the
 * operation, and a JSON body must satisfy that status's schema (ajv, JSON Schema 2020-12,
 * with the document's components). Generic: give it any document and any response.
 */
export class OpenApiConformance {
  private readonly ajv: Ajv2020Module.default;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; re: RegExp }[];
  private readonly paths: Paths;

  constructor(private readonly doc: OpenApiDoc) {
    this.paths = (doc as { paths?: Paths }).paths ?? {};
    // ajv and ajv-formats are CommonJS; under NodeNext their callable is `.default`.
    // Not strict: the document around the schemas has OpenAPI keywords ajv does not know.
    this.ajv = new Ajv2020Module.default({ strict: false, allErrors: true });
    addFormatsModule.default(this.ajv);
    // The whole document under one id, so `#/components/schemas/...` resolves inside it.
    this.ajv.addSchema({ ...doc, $id: DOC_ID });
    // Literal paths before templated ones: `/v1/task/{id}` must not swallow a literal sibling.
    this.templates = Object.keys(this.paths)
      .sort((a, b) => Number(a.includes('{')) - Number(b.includes('{')))
      .map((template) => ({ template, re: pathMatcher(template) }));
  }

  /** The documented path template a concrete path belongs to, if any. */
  templateOf(path: string, method: string): string | undefined {
    const m = method.toLowerCase();
    return this.templates.find((t) => t.re.test(path) && this.paths[t.template]?.[m])?.template;
  }

  /** Undefined when the response conforms; else what is wrong, in one line. */
  check(
    method: string,
    url: string,
    status: number,
    contentType: string | undefined,
    body: string,
  ): Nonconformance {
    const path = url.split('?')[0]!;
    const m = method.toLowerCase();
    const template = this.templateOf(path, m);
    if (!template)
      return status === 404 ? undefined : `${method} ${path}: no documented operation (got ${status})`;
    const response = this.paths[template]![m]!.responses?.[String(status)];
    if (!response) return `${method} ${template}: status ${status} is not documented`;
    const media = response.content?.['application/json'];
    if (!media?.schema) return undefined;
    if (!contentType?.startsWith('application/json')) {
      return `${method} ${template} ${status}: expected application/json, got ${contentType ?? 'nothing'}`;
    }
    const ref = `${DOC_ID}#/${pointer('paths', template, m, 'responses', String(status), 'content', 'application/json', 'schema')}`;
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, validate);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return `${method} ${template} ${status}: the body is not JSON`;
    }
    if (validate(parsed)) return undefined;
    const errs = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    return `${method} ${template} ${status}: ${errs} in ${body.slice(0, 300)}`;
  }

  /**
   * Undefined when `envelope` is what the document's `webhooks` entry for its type says the
   * daemon sends (the request body schema); else what is wrong, in one line.
   */
  checkWebhook(envelope: { type: string; [field: string]: unknown }): Nonconformance {
    const type = envelope.type;
    const ref = `${DOC_ID}#/${pointer('webhooks', envelope.type, 'post', 'requestBody', 'content', 'application/json', 'schema')}`;
    const hooks = (this.doc as { webhooks?: Record<string, unknown> }).webhooks ?? {};
    if (!Object.hasOwn(hooks, envelope.type)) return `webhook ${envelope.type}: no documented entry`;
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, validate);
    }
    if (validate(envelope)) return undefined;
    const errs = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    return `webhook ${type}: ${errs}`;
  }
}

const shared = new Map<string, OpenApiConformance>();

/** One checker per distinct document: compiling costs more than checking. */
export function conformanceFor(doc: OpenApiDoc): OpenApiConformance {
  const key = JSON.stringify(doc);
  let c = shared.get(key);
  if (!c) shared.set(key, (c = new OpenApiConformance(doc)));
  return c;
}

/**
 * Check every response an app sends against its document, as it is sent. Call before
 * `app.ready()`; `violations()` lists what did not conform.
 */
export function watchConformance(
  app: {
    addHook(
      name: 'onSend',
      hook: (
        request: { method: string; url: string },
        reply: { statusCode: number; getHeader(name: string): unknown },
        payload: unknown,
      ) => Promise<unknown>,
    ): unknown;
  },
  doc: OpenApiDoc,
): { violations: () => string[] } {
  const checker = conformanceFor(doc);
  const found: string[] = [];
  app.addHook('onSend', async (request, reply, payload) => {
    const type = reply.getHeader('content-type');
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : '';
    const v = checker.check(
      request.method,
      request.url,
      reply.statusCode,
      typeof type === 'string' ? type : undefined,
      body,
    );
    if (v) found.push(v);
    return payload;
  });
  return { violations: () => [...found] };
}

/**
 * The daemon document's `webhooks` alone (no routes), for suites that check what the outbox
 * emits without starting a daemon.
 */
export async function webhookConformance(): Promise<OpenApiConformance> {
  const { openApiDocument } = await import('../../src/http/openapi.js');
  const { EVENT_WEBHOOKS } = await import('../../src/api/event-webhooks.js');
  return conformanceFor(openApiDocument([], { version: '0', webhooks: EVENT_WEBHOOKS }));
}
