import { cjson } from '../../evidence/cjson.js';
import { encodeHex, encodeUtf8 } from '../../evidence/encoding.js';
import { sha256 } from '../../evidence/node-crypto.js';
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
  const identity = Object.fromEntries(
    Object.entries(body).filter(([k]) => !(CORRELATION_FIELDS as readonly string[]).includes(k)),
  );
  return encodeHex(sha256(encodeUtf8(cjson(identity))));
}
