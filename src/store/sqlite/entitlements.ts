import { readsAllAccess, readsEntitlement, type EntitlementStatus } from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import { entitlementRevocation, type EntitlementRevocationOps } from '../../core/entitlement-revocation.js';
import { runSync } from '../../core/use-case.js';
import type { AccessReceipt, EntitlementKey, EntitlementRecord, EntitlementStore } from '../access-ports.js';
import {
  ENTITLEMENT_SELECT as SELECT,
  entitlementFacts,
  overseers,
  toEntitlementRecord,
  toStoredEntitlement,
  type EntitlementRow,
} from '../rows/entitlement.js';
import type { Keyset, KeysetPage } from '../query-ports.js';
import { accessWrites } from './access-writes.js';
import { prep, storeError, type Db } from './database.js';
import { keysetPage } from '../rows/keyset.js';
import { writeTransaction } from './write-lock.js';
import { sqliteOutbox } from './outbox.js';

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

function one(db: Db, tenantId: string, id: string): EntitlementRow | undefined {
  return prep(db, `${SELECT} WHERE e.tenant_id = ? AND e.id = ?`).get(tenantId, id) as
    EntitlementRow | undefined;
}

/** One entitlement as stored, without a read check: for the store's own writes. */
export function entitlementById(
  db: Db,
  tenantId: string,
  id: string,
  now: Date,
): EntitlementRecord | undefined {
  const row = one(db, tenantId, id);
  return row && toEntitlementRecord(row, now);
}

/** What core/entitlement-revocation.ts asks for, answered at once on the caller's transaction. */
export function entitlementRevocationOps(db: Db): EntitlementRevocationOps {
  return {
    ...accessWrites(db),
    ...sqliteOutbox(db),
    entitlement: (tenantId, id) => {
      const row = one(db, tenantId, id);
      return row && toStoredEntitlement(row);
    },
  };
}

export class SqliteEntitlements implements EntitlementStore {
  private readonly q;
  private readonly ops: EntitlementRevocationOps;

  constructor(private readonly db: Db) {
    this.q = {
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
    };
    this.ops = entitlementRevocationOps(db);
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
    const row = one(this.db, viewer.tenantId, id);
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
    const tx = this.db.transaction(() => {
      const receipt = runSync(entitlementRevocation(viewer, id, note, at), this.ops);
      return { entitlement: toEntitlementRecord(one(this.db, viewer.tenantId, id)!, at), receipt };
    });
    try {
      return await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, `entitlement ${id}`);
    }
  }
}
