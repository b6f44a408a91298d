/**
 * The integration-operations document (`svc daemon start --integration-ops FILE`): the
 * surfaces brokered capabilities execute through. YAML or JSON (YAML reads both); zod checks
 * the shape and the cross-field rules, and every error names the path and the line it is on.
 * Credentials are never in the document: only references to where they are kept.
 */
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import type { SvcError } from '../core/errors.js';
import { SLUG } from '../core/ids.js';
import { parseCredentialRef } from './credential-ref.js';
import { invalid, message, offsetOf, pathText } from './document-errors.js';
import { isJsonPointer } from '../core/json-pointer.js';
import { HTTP_METHODS, type HttpMethod, type OperationSpec } from './request-plan.js';
import { parseTemplate } from './template.js';

export type AuthSpec = { type: 'bearer' } | { type: 'header'; name: string } | { type: 'basic' };

export interface SurfaceSpec {
  id: string;
  adapter: 'http';
  /** without a trailing slash; operation paths are appended */
  baseUrl: string;
  credentialRef: string;
  /** further references an administrator may rotate to or check (besides any secret:) */
  credentialRefs: string[];
  auth: AuthSpec;
  /** the tenants that may use it; null: every tenant */
  tenants: string[] | null;
  timeoutMs: number;
  maxResponseBytes: number;
  /** a request the connection check may send: a fixed path, no params */
  check: { method: HttpMethod; path: string } | null;
  operations: Map<string, OperationSpec>;
}

export interface IntegrationDocument {
  file: string;
  surfaces: SurfaceSpec[];
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1 << 20;
const OPERATION = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
// Framing and credentials are the connector's to set, never an operation's.
const RESERVED_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
]);

const templateText = z.string().superRefine((text, ctx) => {
  try {
    parseTemplate(text);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
  }
});
const credentialRef = z.string().superRefine((text, ctx) => {
  try {
    parseCredentialRef('credential_ref', text);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as SvcError).reason.replace(/^credential_ref: /, '') });
  }
});
const pathTemplate = templateText.refine((p) => p.startsWith('/') && !/[?#]/.test(p), {
  message: 'expected a path starting with "/" (put query parameters under query)',
});
const headerName = z.string().regex(HEADER_NAME, 'expected an HTTP header name');

const Operation = z.strictObject({
  method: z.enum(HTTP_METHODS),
  path: pathTemplate,
  query: z.record(z.string().min(1), templateText).optional(),
  headers: z.record(z.string(), templateText).optional(),
  body: z.enum(['params', 'none']).optional(),
  effect_id: z.string().refine(isJsonPointer, { message: 'expected a JSON pointer such as /id' }).optional(),
  return_body: z.boolean().optional(),
  amount: z
    .strictObject({
      param: z.string().refine((p) => p !== '' && isJsonPointer(p), {
        message: 'expected a JSON pointer such as /amount_cents',
      }),
      unit: z.enum(['cents', 'usd']),
    })
    .optional(),
});

const Auth = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('bearer') }),
  z.strictObject({ type: z.literal('header'), name: headerName }),
  z.strictObject({ type: z.literal('basic') }),
]);

const Surface = z
  .strictObject({
    id: z.string().regex(SLUG, 'expected a slug such as crm'),
    adapter: z.literal('http'),
    base_url: z.string(),
    credential_ref: credentialRef,
    credential_refs: z.array(credentialRef).optional(),
    auth: Auth,
    tenants: z.array(z.string().regex(SLUG, 'expected a tenant id')).min(1).optional(),
    timeout_ms: z.number().int().min(1).max(120_000).optional(),
    max_response_bytes: z
      .number()
      .int()
      .min(1)
      .max(16 << 20)
      .optional(),
    allow_insecure_http: z.boolean().optional(),
    check: z
      .strictObject({
        method: z.enum(HTTP_METHODS),
        path: z.string().refine((p) => p.startsWith('/') && !/[?#{}]/.test(p), {
          message: 'expected a fixed path starting with "/", without placeholders',
        }),
      })
      .optional(),
    operations: z.record(z.string(), Operation),
  })
  .superRefine((s, ctx) => {
    const problem = baseUrlProblem(s.base_url, s.allow_insecure_http === true);
    if (problem) ctx.addIssue({ code: 'custom', path: ['base_url'], message: problem });
    if (Object.keys(s.operations).length === 0) {
      ctx.addIssue({ code: 'custom', path: ['operations'], message: 'expected at least one operation' });
    }
    // Keys are checked here rather than by the records' key schemas, so the message names the key.
    for (const [name, op] of Object.entries(s.operations)) {
      if (!OPERATION.test(name)) {
        const message = 'expected an operation name such as contacts.create';
        ctx.addIssue({ code: 'custom', path: ['operations', name], message });
      }
      for (const h of Object.keys(op.headers ?? {})) {
        const message = !HEADER_NAME.test(h)
          ? 'expected an HTTP header name'
          : RESERVED_HEADERS.has(h.toLowerCase())
            ? 'is set by the connector, not by an operation'
            : s.auth.type === 'header' && h.toLowerCase() === s.auth.name.toLowerCase()
              ? 'is the credential header of this surface'
              : undefined;
        if (message) ctx.addIssue({ code: 'custom', path: ['operations', name, 'headers', h], message });
      }
    }
  });

const Schema = z
  .strictObject({ version: z.literal(1).optional(), surfaces: z.array(Surface).min(1) })
  .superRefine((d, ctx) => {
    const seen = new Set<string>();
    d.surfaces.forEach((s, i) => {
      if (seen.has(s.id))
        ctx.addIssue({ code: 'custom', path: ['surfaces', i, 'id'], message: `a second surface ${s.id}` });
      seen.add(s.id);
    });
  });
type Parsed = z.output<typeof Schema>;

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

function baseUrlProblem(text: string, insecureAllowed: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'expected an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'expected an http:// or https:// URL';
  // A credential in the URL would travel in every log line that prints it.
  if (url.username !== '' || url.password !== '')
    return 'must not carry a user or password; use credential_ref';
  if (url.search !== '' || url.hash !== '') return 'must not carry a query or fragment';
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname) && !insecureAllowed) {
    return 'plain http sends the credential in clear text; use https, or set allow_insecure_http: true';
  }
  return undefined;
}

function operationSpec(name: string, o: z.output<typeof Operation>): OperationSpec {
  const body = o.body ?? (o.method === 'GET' || o.method === 'DELETE' ? 'none' : 'params');
  return {
    name,
    method: o.method,
    path: parseTemplate(o.path),
    query: Object.entries(o.query ?? {}).map(([k, v]) => [k, parseTemplate(v)]),
    headers: Object.entries(o.headers ?? {}).map(([k, v]) => [k.toLowerCase(), parseTemplate(v)]),
    body,
    effectId: o.effect_id ?? null,
    returnBody: o.return_body ?? false,
    amount: o.amount ?? null,
  };
}

function toSpecs(file: string, d: Parsed): IntegrationDocument {
  return {
    file,
    surfaces: d.surfaces.map((s) => ({
      id: s.id,
      adapter: s.adapter,
      baseUrl: s.base_url.replace(/\/+$/, ''),
      credentialRef: s.credential_ref,
      credentialRefs: s.credential_refs ?? [],
      auth: s.auth.type === 'header' ? { type: 'header', name: s.auth.name.toLowerCase() } : s.auth,
      tenants: s.tenants ?? null,
      timeoutMs: s.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      maxResponseBytes: s.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      check: s.check ?? null,
      operations: new Map(Object.entries(s.operations).map(([n, o]) => [n, operationSpec(n, o)])),
    })),
  };
}

/** Parse the document's text; `file` is how messages name it. */
export function parseIntegrationDocument(text: string, file: string): IntegrationDocument {
  const lines = new LineCounter();
  const yaml = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return `${file}:${line}:${col}`;
  };
  if (yaml.errors.length > 0)
    throw invalid(
      file,
      yaml.errors.map((e) => `${at(e.pos[0])}: ${e.message}`),
    );
  const parsed = Schema.safeParse(yaml.toJS({ maxAliasCount: 100 }), { error: message });
  if (!parsed.success) {
    throw invalid(
      file,
      parsed.error.issues
        .flatMap((issue) => {
          const path = issue.path.filter((k): k is string | number => typeof k !== 'symbol');
          const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
          return keys.map((key) => {
            const full = key === undefined ? path : [...path, key];
            const text = key === undefined ? issue.message : 'unknown field';
            return { offset: offsetOf(yaml, full, key !== undefined), text: `${pathText(full)}: ${text}` };
          });
        })
        .sort((a, b) => a.offset - b.offset)
        .map((e) => `${at(e.offset)}: ${e.text}`),
    );
  }
  return toSpecs(file, parsed.data);
}
