import { readsAccessRequest } from '../../core/access.js';
import { accessRequest, requestWithdrawal, type AccessRequestOps } from '../../core/access-request.js';
import type { Actor } from '../../core/actor.js';
import { runAsync, type Async } from '../../core/use-case.js';
import type {
  AccessReceipt,
  AccessRequestRecord,
  AccessRequestStore,
  NewAccessRequest,
} from '../access-ports.js';
import { facts } from '../rows/access.js';
import { toRequestable, toStoredRequest, type RequestableRow } from '../rows/access-request.js';
import { AccessReads } from './access-reads.js';
import { accessWritesIn } from './access-writes.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant } from './locks.js';
import { pgOutbox } from './outbox.js';

// The same test the decision applies at step 6 (a standing permission, or a live
// entitlement), read with the request still pending, in one round trip.
const STANDING = `SELECT EXISTS (
    SELECT 1 FROM permissions WHERE tenant_id = $1 AND actor_id = $2 AND capability = $3
    UNION ALL SELECT 1 FROM entitlements WHERE tenant_id = $1 AND actor_id = $2 AND capability = $3
      AND revoked_at IS NULL AND expires_at > $4) AS held,
  (SELECT id FROM access_requests
    WHERE tenant_id = $1 AND actor_id = $2 AND capability = $3 AND status = 'pending' LIMIT 1) AS pending`;

/** What core/access-request.ts asks for, on the caller's transaction. */
export function accessRequestOpsIn(tx: PgTx, reads = new AccessReads(tx)): Async<AccessRequestOps> {
  return {
    ...pgOutbox(tx),
    ...accessWritesIn(tx),
    actor: (tenantId, id) => reads.actor(tenantId, id),
    requestable: async (tenantId, capability) => {
      const [row] = await tx.query<RequestableRow>(
        'SELECT requestable, owners, tier FROM capabilities WHERE tenant_id = $1 AND name = $2',
        [tenantId, capability],
      );
      return row && toRequestable(row);
    },
    standing: async (tenantId, actorId, capability, now) => {
      const [row] = await tx.query<{ held: boolean; pending: string | null }>(STANDING, [
        tenantId,
        actorId,
        capability,
        now,
      ]);
      return { held: row!.held, pendingId: row!.pending ?? undefined };
    },
    humans: async (tenantId, ids) =>
      (
        await tx.query<{ id: string }>(
          `SELECT id FROM actors WHERE tenant_id = $1 AND id = ANY($2::text[]) AND kind = 'human'`,
          [tenantId, ids],
        )
      ).map((r) => r.id),
    openRequest: async (r) => {
      await tx.query(
        `INSERT INTO access_requests (tenant_id, id, actor_id, capability, reason, duration_seconds, status, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7)`,
        [r.tenantId, r.id, r.actorId, r.capability, r.reason, r.durationSeconds, r.at],
      );
      for (const c of r.cards) {
        await tx.query(
          `INSERT INTO manager_cards (tenant_id, id, request_id, recipient_id, role, created_at)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [r.tenantId, c.id, r.id, c.recipientId, c.role, r.at],
        );
      }
    },
    request: async (tenantId, id) => {
      const row = await reads.request(tenantId, id);
      return row && toStoredRequest(row, await reads.deciders(row));
    },
  };
}

/** Access requests on PostgreSQL: the use cases of core/access-request.ts in one tenant transaction each. */
export class PgAccessRequests implements AccessRequestStore {
  constructor(private readonly db: PgDb) {}

  /** One transaction under the tenant's lock, taken before anything is read. */
  private async run<T>(
    tenantId: string,
    what: string,
    fn: (
      ops: Async<AccessRequestOps>,
      record: (id: string, now: Date) => Promise<AccessRequestRecord>,
    ) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, tenantId);
        const reads = new AccessReads(tx);
        // the request as the use case wrote it, read back in its transaction
        const record = async (id: string, now: Date) =>
          reads.record((await reads.request(tenantId, id))!, now);
        return fn(accessRequestOpsIn(tx, reads), record);
      });
    } catch (err) {
      throw pgStoreError(err, what);
    }
  }

  async request(input: NewAccessRequest): Promise<{ request: AccessRequestRecord; receipt: AccessReceipt }> {
    return this.run(input.tenantId, `access request for ${input.capability}`, async (ops, record) => {
      const { id, receipt } = await runAsync(accessRequest(input), ops);
      return { request: await record(id, input.at), receipt };
    });
  }

  async get(viewer: Actor, id: string, now: Date): Promise<AccessRequestRecord | undefined> {
    // One snapshot for the request, its cards and its deciders.
    return this.db.tx(async (tx) => {
      const reads = new AccessReads(tx);
      const row = await reads.request(viewer.tenantId, id);
      if (!row) return undefined;
      // A recipient whose card predates a change of owners still reads the request it was asked about.
      const readers = [
        ...(await reads.deciders(row)),
        ...(await reads.cardsOf(row)).map((c) => c.recipient_id),
      ];
      return readsAccessRequest(viewer, facts(row), readers) ? reads.record(row, now) : undefined;
    });
  }

  async revoke(
    viewer: Actor,
    id: string,
    note: string | null,
    at: Date,
  ): Promise<{ request: AccessRequestRecord; receipt: AccessReceipt }> {
    return this.run(viewer.tenantId, `access request ${id}`, async (ops, record) => {
      const receipt = await runAsync(requestWithdrawal(viewer, id, note, at), ops);
      return { request: await record(id, at), receipt };
    });
  }
}
