import { readsAccessRequest } from '../../core/access.js';
import { accessRequest, requestWithdrawal, type AccessRequestOps } from '../../core/access-request.js';
import type { Actor } from '../../core/actor.js';
import { runSync } from '../../core/use-case.js';
import type {
  AccessReceipt,
  AccessRequestRecord,
  AccessRequestStore,
  NewAccessRequest,
} from '../access-ports.js';
import { facts } from '../rows/access.js';
import { toRequestable, toStoredRequest, type RequestableRow } from '../rows/access-request.js';
import { AccessReads } from './access-reads.js';
import { accessWrites } from './access-writes.js';
import { storeError, type Db } from './database.js';
import { sqliteOutbox } from './outbox.js';
import { writeTransaction } from './write-lock.js';

// The same test the decision applies at step 6: a standing permission, or a live entitlement.
const HOLDS = `SELECT EXISTS (
    SELECT 1 FROM permissions WHERE tenant_id = @tenant AND actor_id = @actor AND capability = @capability
    UNION ALL SELECT 1 FROM entitlements WHERE tenant_id = @tenant AND actor_id = @actor AND capability = @capability
      AND revoked_at IS NULL AND expires_at > @now)`;

/** What core/access-request.ts asks for, answered at once on the caller's transaction. */
export function accessRequestOps(db: Db, reads = new AccessReads(db)): AccessRequestOps {
  const q = {
    capability: db.prepare<[string, string], RequestableRow>(
      'SELECT requestable, owners, tier FROM capabilities WHERE tenant_id = ? AND name = ?',
    ),
    holds: db
      .prepare<[{ tenant: string; actor: string; capability: string; now: string }], number>(HOLDS)
      .pluck(),
    pending: db
      .prepare<[string, string, string], string>(
        `SELECT id FROM access_requests WHERE tenant_id = ? AND actor_id = ? AND capability = ? AND status = 'pending'`,
      )
      .pluck(),
    insertRequest: db.prepare(
      `INSERT INTO access_requests (tenant_id, id, actor_id, capability, reason, duration_seconds, status, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)`,
    ),
    insertCard: db.prepare(
      `INSERT INTO manager_cards (tenant_id, id, request_id, recipient_id, role, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
    ),
  };
  return {
    ...sqliteOutbox(db),
    ...accessWrites(db),
    actor: (tenantId, id) => reads.actor(tenantId, id),
    requestable: (tenantId, capability) => {
      const row = q.capability.get(tenantId, capability);
      return row && toRequestable(row);
    },
    standing: (tenant, actor, capability, now) => ({
      held: q.holds.get({ tenant, actor, capability, now }) === 1,
      pendingId: q.pending.get(tenant, actor, capability),
    }),
    humans: (tenantId, ids) => ids.filter((id) => reads.actor(tenantId, id)?.kind === 'human'),
    openRequest: (r) => {
      q.insertRequest.run(r.tenantId, r.id, r.actorId, r.capability, r.reason, r.durationSeconds, r.at);
      for (const c of r.cards) q.insertCard.run(r.tenantId, c.id, r.id, c.recipientId, c.role, r.at);
    },
    request: (tenantId, id) => {
      const row = reads.request(tenantId, id);
      return row && toStoredRequest(row, reads.deciders(row));
    },
  };
}

/** Access requests on SQLite: the use cases of core/access-request.ts in one write transaction each. */
export class SqliteAccessRequests implements AccessRequestStore {
  private readonly reads: AccessReads;
  private readonly ops: AccessRequestOps;

  constructor(private readonly db: Db) {
    this.reads = new AccessReads(db);
    this.ops = accessRequestOps(db, this.reads);
  }

  private async run<T>(what: string, fn: () => T): Promise<T> {
    try {
      return await writeTransaction(this.db, fn);
    } catch (err) {
      throw storeError(err, what);
    }
  }

  async request(input: NewAccessRequest): Promise<{ request: AccessRequestRecord; receipt: AccessReceipt }> {
    return this.run(`access request for ${input.capability}`, () => {
      const { id, receipt } = runSync(accessRequest(input), this.ops);
      return { request: this.record(input.tenantId, id, input.at), receipt };
    });
  }

  async get(viewer: Actor, id: string, now: Date): Promise<AccessRequestRecord | undefined> {
    const row = this.reads.request(viewer.tenantId, id);
    if (!row) return undefined;
    // A recipient whose card predates a change of owners still reads the request it was asked about.
    const readers = [...this.reads.deciders(row), ...this.reads.cardsOf(row).map((c) => c.recipient_id)];
    return readsAccessRequest(viewer, facts(row), readers) ? this.reads.record(row, now) : undefined;
  }

  async revoke(
    viewer: Actor,
    id: string,
    note: string | null,
    at: Date,
  ): Promise<{ request: AccessRequestRecord; receipt: AccessReceipt }> {
    return this.run(`access request ${id}`, () => {
      const receipt = runSync(requestWithdrawal(viewer, id, note, at), this.ops);
      return { request: this.record(viewer.tenantId, id, at), receipt };
    });
  }

  /** The request as its writer reads it back, in the transaction that wrote it. */
  private record(tenantId: string, id: string, now: Date): AccessRequestRecord {
    return this.reads.record(this.reads.request(tenantId, id)!, now);
  }
}
