import {
  entitlementRevokeRefusal,
  entitlementStatus,
  readsAllAccess,
  readsEntitlement,
  type EntitlementFacts,
  type EntitlementStatus,
} from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import type { AccessReceipt, EntitlementKey, EntitlementRecord, EntitlementStore } from '../access-ports.js';
import type { Keyset, KeysetPage } from '../query-ports.js';
import { keysetPage } from '../sqlite/keyset.js';
import { appendAccessRecord } from './access-journal.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant } from './locks.js';

interface EntitlementRow {
  tenant_id: string;
  id: string;
  actor_id: string;
  capability: string;
  access_request_id: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
  granted_by: string | null;
  /** the holder's accountable manager */
  manager_id: string | null;
  /** the capability's owners as registered now (JSON array) */
  owners: string | null;
  tier: string | null;
}

const SELECT = `SELECT e.*, r.decided_by AS granted_by, a.manager_id, c.owners, c.tier
  FROM entitlements e
  LEFT JOIN access_requests r ON r.tenant_id = e.tenant_id AND r.id = e.access_request_id
  LEFT JOIN actors a ON a.tenant_id = e.tenant_id AND a.id = e.actor_id
  LEFT JOIN capabilities c ON c.tenant_id = e.tenant_id AND c.name = e.capability`;

const facts = (r: EntitlementRow): EntitlementFacts => ({
  id: r.id,
  holderId: r.actor_id,
  capability: r.capability,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
});

/** The holder's manager and the capability's owners: they oversee the entitlement. */
const overseers = (r: EntitlementRow): string[] => [
  ...(r.manager_id !== null ? [r.manager_id] : []),
  ...(r.owners === null ? [] : (JSON.parse(r.owners) as string[])),
];

function toRecord(r: EntitlementRow, now: Date): EntitlementRecord {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    actorId: r.actor_id,
    capability: r.capability,
    accessRequestId: r.access_request_id,
    grantedBy: r.granted_by,
    status: entitlementStatus({ expiresAt: r.expires_at, revokedAt: r.revoked_at }, now),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
    revokedBy: r.revoked_by,
  };
}

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
  return r && toRecord(r, now);
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
      (r) => toRecord(r, now),
      (item) => ({ createdAt: item.createdAt, id: item.id }),
    );
  }

  async get(viewer: Actor, id: string, now: Date): Promise<EntitlementRecord | undefined> {
    const r = await row(this.db, viewer.tenantId, id);
    return r && readsEntitlement(viewer, facts(r), overseers(r)) ? toRecord(r, now) : undefined;
  }

  async revoke(
    viewer: Actor,
    id: string,
    note: string | null,
    at: Date,
  ): Promise<{ entitlement: EntitlementRecord; receipt: AccessReceipt }> {
    const when = at.toISOString();
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, viewer.tenantId);
        const r = await row(tx, viewer.tenantId, id);
        if (!r) throw new SvcError('not_found', `no entitlement ${id}`);
        const refusal = entitlementRevokeRefusal(facts(r), viewer, overseers(r), at);
        if (refusal) throw refusal;
        await tx.query(
          `UPDATE entitlements SET revoked_at = $1, revoked_by = $2
           WHERE tenant_id = $3 AND id = $4 AND revoked_at IS NULL`,
          [when, viewer.id, viewer.tenantId, id],
        );
        if (r.access_request_id !== null) {
          await tx.query(
            `UPDATE access_requests SET status = 'revoked', revoked_by = $1, revoked_at = $2
             WHERE tenant_id = $3 AND id = $4 AND status = 'approved'`,
            [viewer.id, when, viewer.tenantId, r.access_request_id],
          );
        }
        const receipt = await appendAccessRecord(tx, {
          tenantId: viewer.tenantId,
          step: 'entitlement_revoked',
          actorId: viewer.id,
          subjectId: r.access_request_id ?? r.id,
          capability: r.capability,
          tier: r.tier === null ? 0 : Number(r.tier),
          at: when,
          fields: {
            entitlement_id: r.id,
            access_request_id: r.access_request_id,
            holder_id: r.actor_id,
            expires_at: r.expires_at,
            note,
          },
        });
        return { entitlement: (await entitlementById(tx, viewer.tenantId, id, at))!, receipt };
      });
    } catch (err) {
      throw pgStoreError(err, `entitlement ${id}`);
    }
  }
}
