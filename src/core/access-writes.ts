import type { StoredAccessStatus } from './access.js';
import type { AccessJournalInput, AccessReceipt } from './records/access-record.js';

/**
 * The writes the two access revocations share: withdrawing an approved request ends its
 * entitlement, and revoking an entitlement ends the request it came from, so each use case
 * ends both sides in its one transaction. Each revocation is guarded by the state it was
 * judged on and answers how many rows it changed (core/guarded-write.ts checks for one).
 */
export interface AccessWrites {
  /** the request becomes 'revoked' where its status is still `expected` */
  revokeRequest(tenantId: string, id: string, expected: StoredAccessStatus, by: string, at: string): number;
  /** the entitlement is revoked where it was not yet */
  revokeEntitlement(tenantId: string, id: string, by: string, at: string): number;
  /** append the step's journal record, built by core/records/access-record.ts from `entry` */
  appendAccess(entry: AccessJournalInput): AccessReceipt;
}
