import {
  entitlementRevokeRefusal,
  readsAllAccess,
  readsEntitlement,
  type EntitlementStatus,
} from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import type { AccessReceipt, EntitlementKey, EntitlementRecord, EntitlementStore } from '../access-ports.js';
import {
  entitlementFacts,
  overseers,
  revocationEntry,
  toEntitlementRecord,
  type EntitlementRow,
} from '../rows/entitlement.js';
import type { Keyset, KeysetPage } from '../query-ports.js';
import { appendAccessRecord } from './access-journal.js';
import { prep, storeError, type Db } from './database.js';
import { JournalWriter } from './journal.js';
import { keysetPage } from '../rows/keyset.js';
import { writeTransaction } from './write-lock.js';

const SELECT = `SELECT e.*, r.decided_by AS granted_by, a.manager_id, c.owners, c.tier
  FROM entitlements e
  LEFT JOIN access_requests r ON r.tenant_id = e.tenant_id AND r.id = e.access_request_id
  LEFT JOIN actors a ON a.tenant_id = e.tenant_id AND a.id = e.actor_id
  LEFT JOIN capabilities c ON c.tenant_id = e.tenant_id AND c.name = e.capability`;

interface PageParams {
  tenant: string;
  all: number;
  viewer: string;
  actor: string | null;
  status: string | null;
  now: string;
  after_created: string | null;
  after_id: string | null;
  limit: number;
}

/** One entitlement as stored, without a read check: for the store's own writes. */
export function entitlementById(
  db: Db,
  tenantId: string,
  id: string,
  now: Date,
): EntitlementRecord | undefined {
  const row = prep(db, `${SELECT} WHERE e.tenant_id = ? AND e.id = ?`).get(tenantId, id) as
    EntitlementRow | undefined;
  return row && toEntitlementRecord(row, now);
}

export class SqliteEntitlements implements EntitlementStore {
  private readonly journal: JournalWriter;
  private readonly q;

  constructor(private readonly db: Db) {
    this.journal = new JournalWriter(db);
    this.q = {
      one: db.prepare<[string, string], EntitlementRow>(`${SELECT} WHERE e.tenant_id = ? AND e.id = ?`),
      page: db.prepare<[PageParams], EntitlementRow>(
        `${SELECT} WHERE e.tenant_id = @tenant
           AND (@all = 1 OR e.actor_id = @viewer OR a.manager_id = @viewer
             OR EXISTS (SELECT 1 FROM json_each(c.owners) o WHERE o.value = @viewer))
           AND (@actor IS NULL OR e.actor_id = @actor)
           AND (@status IS NULL
             OR (@status = 'revoked' AND e.revoked_at IS NOT NULL)
             OR (@status = 'expired' AND e.revoked_at IS NULL AND e.expires_at <= @now)
             OR (@status = 'active' AND e.revoked_at IS NULL AND e.expires_at > @now))
           AND (@after_created IS NULL OR (e.created_at, e.id) > (@after_created, @after_id))
         ORDER BY e.created_at, e.id LIMIT @limit`,
      ),
      revoke: db.prepare(
        'UPDATE entitlements SET revoked_at = ?, revoked_by = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL',
      ),
      revokeRequest: db.prepare(
        `UPDATE access_requests SET status = 'revoked', revoked_by = ?, revoked_at = ?
         WHERE tenant_id = ? AND id = ? AND status = 'approved'`,
      ),
    };
  }

  async list(
    viewer: Actor,
    page: Keyset<EntitlementKey>,
    filter: { status?: EntitlementStatus; actorId?: string },
    now: Date,
  ): Promise<KeysetPage<EntitlementRecord, EntitlementKey>> {
    const rows = this.q.page.all({
      tenant: viewer.tenantId,
      all: readsAllAccess(viewer) ? 1 : 0,
      viewer: viewer.id,
      actor: filter.actorId ?? null,
      status: filter.status ?? null,
      now: now.toISOString(),
      after_created: page.after?.createdAt ?? null,
      after_id: page.after?.id ?? null,
      limit: page.limit + 1,
    });
    return keysetPage(
      rows,
      page.limit,
      (r) => toEntitlementRecord(r, now),
      (item) => ({ createdAt: item.createdAt, id: item.id }),
    );
  }

  async get(viewer: Actor, id: string, now: Date): Promise<EntitlementRecord | undefined> {
    const row = this.q.one.get(viewer.tenantId, id);
    return row && readsEntitlement(viewer, entitlementFacts(row), overseers(row))
      ? toEntitlementRecord(row, now)
      : undefined;
  }

  async revoke(
    viewer: Actor,
    id: string,
    note: string | null,
    at: Date,
  ): Promise<{ entitlement: EntitlementRecord; receipt: AccessReceipt }> {
    const when = at.toISOString();
    const tx = this.db.transaction(() => {
      const row = this.q.one.get(viewer.tenantId, id);
      if (!row) throw new SvcError('not_found', 'no such entitlement');
      const refusal = entitlementRevokeRefusal(entitlementFacts(row), viewer, overseers(row), at);
      if (refusal) throw refusal;
      this.q.revoke.run(when, viewer.id, viewer.tenantId, id);
      if (row.access_request_id !== null) {
        this.q.revokeRequest.run(viewer.id, when, viewer.tenantId, row.access_request_id);
      }
      const receipt = appendAccessRecord(this.journal, revocationEntry(row, viewer, when, note));
      return { entitlement: toEntitlementRecord(this.q.one.get(viewer.tenantId, id)!, at), receipt };
    });
    try {
      return await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, `entitlement ${id}`);
    }
  }
}
