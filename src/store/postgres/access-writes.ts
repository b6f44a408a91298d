import type { AccessWrites } from '../../core/access-writes.js';
import type { Async } from '../../core/use-case.js';
import { appendAccessRecord } from './access-journal.js';
import type { PgTx } from './database.js';

/**
 * The revocations and the journal append both access use cases ask for, on PostgreSQL, in
 * the caller's transaction (which holds the tenant's lock since before its first read).
 */
export function accessWritesIn(tx: PgTx): Async<AccessWrites> {
  return {
    revokeRequest: async (tenantId, id, expected, by, at) =>
      (
        await tx.query(
          `UPDATE access_requests SET status = 'revoked', revoked_by = $1, revoked_at = $2
           WHERE tenant_id = $3 AND id = $4 AND status = $5 RETURNING 1`,
          [by, at, tenantId, id, expected],
        )
      ).length,
    revokeEntitlement: async (tenantId, id, by, at) =>
      (
        await tx.query(
          `UPDATE entitlements SET revoked_at = $1, revoked_by = $2
           WHERE tenant_id = $3 AND id = $4 AND revoked_at IS NULL RETURNING 1`,
          [at, by, tenantId, id],
        )
      ).length,
    appendAccess: (entry) => appendAccessRecord(tx, entry),
  };
}
