import type { AccessWrites } from '../../core/access-writes.js';
import { appendAccessRecord } from './access-journal.js';
import type { Db } from './database.js';
import { JournalWriter } from './journal.js';

/** The revocations and the journal append both access use cases ask for, on SQLite. */
export function accessWrites(db: Db): AccessWrites {
  const journal = new JournalWriter(db);
  const revokeRequest = db.prepare<[string, string, string, string, string]>(
    `UPDATE access_requests SET status = 'revoked', revoked_by = ?, revoked_at = ?
     WHERE tenant_id = ? AND id = ? AND status = ?`,
  );
  const revokeEntitlement = db.prepare<[string, string, string, string]>(
    'UPDATE entitlements SET revoked_at = ?, revoked_by = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL',
  );
  return {
    revokeRequest: (tenantId, id, expected, by, at) =>
      revokeRequest.run(by, at, tenantId, id, expected).changes,
    revokeEntitlement: (tenantId, id, by, at) => revokeEntitlement.run(at, by, tenantId, id).changes,
    appendAccess: (entry) => appendAccessRecord(journal, entry),
  };
}
