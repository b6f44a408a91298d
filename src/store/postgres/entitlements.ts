import { readsAllAccess, readsEntitlement, type EntitlementStatus } from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import { entitlementRevocation, type EntitlementRevocationOps } from '../../core/entitlement-revocation.js';
import { runAsync, type Async } from '../../core/use-case.js';
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
import { keysetPage } from '../rows/keyset.js';
import { accessWritesIn } from './access-writes.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant } from './locks.js';
import { pgOutbox } from './outbox.js';

async function row(
  q: Pick<PgTx, 'query'>,
  tenantId: string,
  id: string,
): Promise<EntitlementRow | undefined> {
  const [r] = await q.query<EntitlementRow>(`${SELECT} WHERE e.tenant_id = $1 AND e.id = $2`, [tenantId, id]);
  return r;
}

/** One entitlement as stored, without a read check: for the store's own writes. */
export async function entitlementById(
  q: Pick<PgTx, 'query'>,
  tenantId: string,
  id: string,
  now: Date,
): Promise<EntitlementRecord | undefined> {
  const r = await row(q, tenantId, id);
  return r && toEntitlementRecord(r, now);
}

/** What core/entitlement-revocation.ts asks for, on the caller's transaction. */
export function entitlementRevocationOpsIn(tx: PgTx): Async<EntitlementRevocationOps> {
  return {
    ...accessWritesIn(tx),
    ...pgOutbox(tx),
    entitlement: async (tenantId, id) => {
      const r = await row(tx, tenantId, id);
      return r && toStoredEntitlement(r);
    },
  };
}

export class PgEntitlements implements EntitlementStore {
  constructor(private readonly db: PgDb) {}

  async list(
    viewer: Actor,
    page: Keyset<EntitlementKey>,
    filter: { status?: EntitlementStatus; actorId?: string },
    now: Date,
  ): Promise<KeysetPage<EntitlementRecord, EntitlementKey>> {
    const rows = await this.db.query<EntitlementRow>(
      `${SELECT} WHERE e.tenant_id = $1
         AND ($2 OR e.actor_id = $3 OR a.manager_id = $3
           OR EXISTS (SELECT 1 FROM json_array_elements_text(c.owners::json) o WHERE o = $3))
         AND ($4::text IS NULL OR e.actor_id = $4)
         AND ($5::text IS NULL
           OR ($5 = 'revoked' AND e.revoked_at IS NOT NULL)
           OR ($5 = 'expired' AND e.revoked_at IS NULL AND e.expires_at <= $6)
           OR ($5 = 'active' AND e.revoked_at IS NULL AND e.expires_at > $6))
         AND ($7::text IS NULL OR (e.created_at, e.id) > ($7, $8::text))
       ORDER BY e.created_at, e.id LIMIT $9`,
      [
        viewer.tenantId,
        readsAllAccess(viewer),
        viewer.id,
        filter.actorId ?? null,
        filter.status ?? null,
        now.toISOString(),
        page.after?.createdAt ?? null,
        page.after?.id ?? null,
        page.limit + 1,
      ],
    );
    return keysetPage(
      rows,
      page.limit,
      (r) => toEntitlementRecord(r, now),
      (item) => ({ createdAt: item.createdAt, id: item.id }),
    );
  }

  async get(viewer: Actor, id: string, now: Date): Promise<EntitlementRecord | undefined> {
    const r = await row(this.db, viewer.tenantId, id);
    return r && readsEntitlement(viewer, entitlementFacts(r), overseers(r))
      ? toEntitlementRecord(r, now)
      : undefined;
  }

  async revoke(
    viewer: Actor,
    id: string,
    note: string | null,
    at: Date,
  ): Promise<{ entitlement: EntitlementRecord; receipt: AccessReceipt }> {
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, viewer.tenantId);
        const receipt = await runAsync(
          entitlementRevocation(viewer, id, note, at),
          entitlementRevocationOpsIn(tx),
        );
        return { entitlement: (await entitlementById(tx, viewer.tenantId, id, at))!, receipt };
      });
    } catch (err) {
      throw pgStoreError(err, `entitlement ${id}`);
    }
  }
}
