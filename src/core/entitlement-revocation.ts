import { entitlementRevokeRefusal, type EntitlementFacts } from './access.js';
import type { AccessWrites } from './access-writes.js';
import type { Actor } from './actor.js';
import { SvcError } from './errors.js';
import { checkGuarded } from './guarded-write.js';
import { emitEvent, type OutboxOps } from './notify/outbox.js';
import { entitlementRevokedData } from './notify/payloads.js';
import type { AccessJournalInput, AccessReceipt } from './records/access-record.js';
import { asker, type UseCase } from './use-case.js';

/** A stored entitlement with what its revocation is judged on and records. */
export interface StoredEntitlement extends EntitlementFacts {
  /** the request it came from, if any */
  accessRequestId: string | null;
  /** the capability's tier as registered now; null if it is gone */
  tier: number | null;
  /** the holder's manager and the capability's owners, as registered now */
  overseers: string[];
}

/** The store operations of revoking an entitlement, inside the one transaction that records it. */
export interface EntitlementRevocationOps extends AccessWrites, OutboxOps {
  entitlement(tenantId: string, id: string): StoredEntitlement | undefined;
}

const ask = asker<EntitlementRevocationOps>();

/**
 * Revoke an active entitlement as `viewer`: new decisions stop at once, and the request it
 * came from (approved while the entitlement was active) reads as revoked too.
 */
export function* entitlementRevocation(
  viewer: Actor,
  id: string,
  note: string | null,
  at: Date,
): UseCase<EntitlementRevocationOps, AccessReceipt> {
  const tenantId = viewer.tenantId;
  const entitlement = yield* ask('entitlement', tenantId, id);
  if (!entitlement) throw new SvcError('not_found', 'no such entitlement');
  const refusal = entitlementRevokeRefusal(entitlement, viewer, entitlement.overseers, at);
  if (refusal) throw refusal;
  const when = at.toISOString();
  checkGuarded('the entitlement revocation', yield* ask('revokeEntitlement', tenantId, id, viewer.id, when));
  if (entitlement.accessRequestId !== null) {
    checkGuarded(
      'the revocation of the request it came from',
      yield* ask('revokeRequest', tenantId, entitlement.accessRequestId, 'approved', viewer.id, when),
    );
  }
  const receipt = yield* ask('appendAccess', revokedEntry(entitlement, viewer, when, note));
  yield* emitEvent(tenantId, 'entitlement.revoked', when, () =>
    entitlementRevokedData({
      id: entitlement.id,
      holderId: entitlement.holderId,
      capability: entitlement.capability,
      accessRequestId: entitlement.accessRequestId,
      expiresAt: entitlement.expiresAt,
      revokedBy: viewer.id,
      revokedAt: when,
      receiptId: receipt.receiptId,
    }),
  );
  return receipt;
}

/** The journal entry of revoking the entitlement `e` (and its approved request, if any). */
const revokedEntry = (
  e: StoredEntitlement,
  viewer: Actor,
  when: string,
  note: string | null,
): AccessJournalInput => ({
  tenantId: viewer.tenantId,
  step: 'entitlement_revoked',
  actorId: viewer.id,
  subjectId: e.accessRequestId ?? e.id,
  capability: e.capability,
  tier: e.tier ?? 0,
  at: when,
  fields: {
    entitlement_id: e.id,
    access_request_id: e.accessRequestId,
    holder_id: e.holderId,
    expires_at: e.expiresAt,
    note,
  },
});
