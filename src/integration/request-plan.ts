import type { ProviderRequest } from '../connectors/http.js';
import { SvcError } from '../core/errors.js';
import { hasControlCharacter } from './header-text.js';
import type { AmountSpec } from './operation-amount.js';
import { fillTemplate, templateParams, type TemplatePart } from './template.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** One operation of a surface, as the integration-operations document declares it. */
export interface OperationSpec {
  name: string;
  method: HttpMethod;
  path: TemplatePart[];
  query: [string, TemplatePart[]][];
  headers: [string, TemplatePart[]][];
  /** params: the request's params, minus those used by placeholders, as a JSON body */
  body: 'params' | 'none';
  /** JSON pointer to the effect id in the provider's response, or null */
  effectId: string | null;
  /** hand the provider's JSON body back to the caller (never journaled) */
  returnBody: boolean;
  /** the param the decision takes its amount from, or null: the requester's estimate */
  amount: AmountSpec | null;
}

/** What the connector sends, before the credential is added: only the methods a document may name. */
export interface PlannedRequest extends ProviderRequest {
  method: HttpMethod;
}

const badParam = (name: string, expected: string) =>
  new SvcError('invalid_request', `params.${name}: ${expected}`, { field: `params.${name}` });

function scalar(params: Record<string, unknown>, name: string, op: string): string {
  if (!Object.hasOwn(params, name)) throw badParam(name, `required by the operation ${op}`);
  const v = params[name];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return String(v);
  throw badParam(name, 'expected a string, number or boolean');
}

/**
 * Map a request's params onto the operation: placeholders filled and URL-encoded, the rest
 * as the JSON body. A param that does not fit is a 400 naming it, before anything is decided.
 */
export function planRequest(op: OperationSpec, given: Record<string, unknown> | null): PlannedRequest {
  const params = given ?? {};
  const used = new Set<string>();
  const take = (name: string) => {
    used.add(name);
    return scalar(params, name, op.name);
  };
  const path = fillTemplate(op.path, (name) => {
    const v = take(name);
    // An empty or dot segment would change which resource the path names.
    if (v === '' || v === '.' || v === '..')
      throw badParam(name, 'expected a value that is not "", "." or ".."');
    return encodeURIComponent(v);
  });
  const query = new URLSearchParams();
  for (const [key, parts] of op.query) query.append(key, fillTemplate(parts, take));
  const headers: Record<string, string> = {};
  for (const [name, parts] of op.headers) {
    headers[name] = fillTemplate(parts, (p) => {
      const v = take(p);
      // No control characters: a header value must not be able to start another header.
      if (hasControlCharacter(v, { allowTab: true }))
        throw badParam(p, 'expected no control characters (it goes into a header)');
      return v;
    });
  }
  const rest = Object.fromEntries(Object.entries(params).filter(([k]) => !used.has(k)));
  let body: string | null = null;
  if (op.body === 'params') {
    body = JSON.stringify(rest);
    headers['content-type'] = 'application/json';
  } else {
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) {
      throw badParam(extra, `not used by the operation ${op.name}, which takes only ${describe(op)}`);
    }
  }
  const qs = query.toString();
  return { method: op.method, target: qs === '' ? path : `${path}?${qs}`, headers, body };
}

function describe(op: OperationSpec): string {
  const names = [
    ...templateParams(op.path),
    ...op.query.flatMap(([, p]) => templateParams(p)),
    ...op.headers.flatMap(([, p]) => templateParams(p)),
  ];
  return names.length === 0 ? 'no params' : `the params ${[...new Set(names)].join(', ')}`;
}
