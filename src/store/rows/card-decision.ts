import type { CardDecisionWrite, NewEntitlement } from '../../core/card-decision.js';

/**
 * The values a card decision writes, in the parameter order of both adapters' statements
 * (`?` on SQLite, `$n` on PostgreSQL): one place says which field fills which column.
 */

/** SET status, decision, decided_by, decided_at, granted_seconds, note, entitlement_id; WHERE tenant_id, id, status. */
export function cardDecisionValues(w: CardDecisionWrite): unknown[] {
  return [
    w.status,
    w.decision,
    w.decidedBy,
    w.decidedAt,
    w.grantedSeconds,
    w.note,
    w.entitlementId,
    w.tenantId,
    w.requestId,
    w.expect.status,
  ];
}

export const ENTITLEMENT_COLUMNS =
  'tenant_id, id, actor_id, capability, access_request_id, created_at, expires_at';

export function entitlementValues(e: NewEntitlement): unknown[] {
  return [e.tenantId, e.id, e.actorId, e.capability, e.accessRequestId, e.createdAt, e.expiresAt];
}
