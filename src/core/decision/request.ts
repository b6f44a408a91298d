import { hash } from 'node:crypto';
import { cjson } from '../../evidence/cjson.js';
import type { Micros } from '../money.js';

export type Route = 'action' | 'brokered';

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
  intent: string | null;
  params: Record<string, unknown> | null;
  correlationId: string | null;
  traceId: string | null;
  /** hex(SHA-256(CJSON(body without correlation fields))) */
  digest: string;
}

/** The caller's own identifiers: journaled, never published, and not part of the request's identity. */
export const CORRELATION_FIELDS = ['correlation_id', 'trace_id'] as const;

/**
 * semantics.md Effect keys: a resume must carry the identical body, compared by
 * `request_digest = hex(SHA-256(CJSON(body without correlation fields)))`.
 */
export function requestDigest(body: Record<string, unknown>): string {
  // Computed for every decision: one loop, and the hash takes the text as UTF-8 and answers
  // in hex natively. cjson refuses lone surrogates, so the text always has a UTF-8 form.
  const identity: [string, unknown][] = [];
  for (const key of Object.keys(body)) {
    if (key !== CORRELATION_FIELDS[0] && key !== CORRELATION_FIELDS[1]) identity.push([key, body[key]]);
  }
  return hash('sha256', cjson(Object.fromEntries(identity)), 'hex');
}
