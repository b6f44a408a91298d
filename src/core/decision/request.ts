import { hash } from 'node:crypto';
import { cjson } from '../../evidence/cjson.js';
import type { Micros } from '../money.js';

export type Route = 'action' | 'brokered';

/**
 * Where a decision's amount came from: the requester's own `amount_usd` (an estimate
 * nobody checked), the capability's default estimate, or the operation's params, which
 * are what the provider receives, so the figure judged is the figure that executes.
 */
export type AmountSource = 'requester_estimate' | 'capability_default' | 'params';

/** A validated ActionRequest / BrokeredRequest (semantics.md, Decision requests). */
export interface DecisionRequest {
  route: Route;
  tenantId: string;
  actorId: string;
  capability: string;
  action: string;
  taskId: string;
  step: string;
  /** null: the capability's default estimate applies */
  amountMicros: Micros | null;
  amountSource: AmountSource;
  intent: string | null;
  params: Record<string, unknown> | null;
  correlationId: string | null;
  traceId: string | null;
  /** hex(SHA-256(CJSON(body without correlation fields))) */
  digest: string;
  /** the validated body; `requestIdentity(body)` is what `digest` hashes and what an approval shows */
  body: Readonly<Record<string, unknown>>;
}

/** The caller's own identifiers: journaled, never published, and not part of the request's identity. */
export const CORRELATION_FIELDS = ['correlation_id', 'trace_id'] as const;

/**
 * semantics.md Effect keys: a resume must carry the identical body, compared by
 * `request_digest = hex(SHA-256(CJSON(body without correlation fields)))`.
 */
export function requestDigest(body: Record<string, unknown>): string {
  // The hash takes the text as UTF-8 and answers in hex natively. cjson refuses lone
  // surrogates, so the text always has a UTF-8 form.
  return hash('sha256', cjson(requestIdentity(body)), 'hex');
}

/** The body a request digest binds: every member but the correlation fields. */
export function requestIdentity(body: Record<string, unknown>): Record<string, unknown> {
  const identity: [string, unknown][] = [];
  for (const key of Object.keys(body)) {
    if (key !== CORRELATION_FIELDS[0] && key !== CORRELATION_FIELDS[1]) identity.push([key, body[key]]);
  }
  return Object.fromEntries(identity);
}

/** The members of an ActionRequest / BrokeredRequest body, as the API validated them. */
export interface ActionRequestFields {
  tenant_id: string;
  actor_id: string;
  capability: string;
  action: string;
  task_id: string;
  effect_key_step: string;
  amount_usd?: number | undefined;
  intent?: string | undefined;
  params?: Record<string, unknown> | undefined;
  correlation_id?: string | undefined;
  trace_id?: string | undefined;
}

const wellFormed = (v: unknown): v is string => typeof v === 'string' && v.isWellFormed();

/**
 * `requestDigest` of a validated request body, built in its canonical member order
 * (RFC 8785 sorts member names by UTF-16 code units; these are ASCII) instead of by the
 * generic walk, which every decision would pay for. Anything it does not expect (another
 * member, a value of another type) takes `requestDigest` itself, so the digest is the same.
 */
export function actionRequestDigest(body: ActionRequestFields): string {
  const b = body as unknown as Record<string, unknown>;
  let members = 6;
  for (const k of ['amount_usd', 'intent', 'params', 'correlation_id', 'trace_id']) {
    if (b[k] !== undefined) members++;
  }
  const amount = body.amount_usd;
  if (
    Object.keys(b).length !== members ||
    !wellFormed(b.action) ||
    !wellFormed(b.actor_id) ||
    !wellFormed(b.capability) ||
    !wellFormed(b.effect_key_step) ||
    !wellFormed(b.task_id) ||
    !wellFormed(b.tenant_id) ||
    (amount !== undefined && (typeof amount !== 'number' || !Number.isFinite(amount))) ||
    (body.intent !== undefined && !wellFormed(body.intent))
  ) {
    return requestDigest(b);
  }
  const s = JSON.stringify;
  let text = `{"action":${s(body.action)},"actor_id":${s(body.actor_id)}`;
  if (amount !== undefined) text += `,"amount_usd":${s(amount)}`;
  text += `,"capability":${s(body.capability)},"effect_key_step":${s(body.effect_key_step)}`;
  if (body.intent !== undefined) text += `,"intent":${s(body.intent)}`;
  if (body.params !== undefined) text += `,"params":${cjson(body.params)}`;
  text += `,"task_id":${s(body.task_id)},"tenant_id":${s(body.tenant_id)}}`;
  return hash('sha256', text, 'hex');
}
