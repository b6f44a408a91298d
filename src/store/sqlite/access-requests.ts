import { accessRevokeRefusal, cardRecipients, readsAccessRequest } from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type {
  AccessReceipt,
  AccessRequestRecord,
  AccessRequestStore,
  NewAccessRequest,
} from '../access-ports.js';
import { appendAccessRecord } from './access-journal.js';
import { facts } from '../rows/access.js';
import {
  checkDeciders,
  checkNotHeldOrPending,
  checkRequestable,
  requestedEntry,
  requestRevokedEntry,
  type RequestableRow,
} from '../rows/access-request.js';
import { AccessReads } from './access-reads.js';
import { storeError, type Db } from './database.js';
import { JournalWriter } from './journal.js';
import { writeTransaction } from './write-lock.js';

// The same test the decision applies at step 6: a standing permission, or a live entitlement.
const HOLDS = `SELECT 1 FROM permissions WHERE tenant_id = @tenant AND actor_id = @actor AND capability = @capability
  UNION ALL SELECT 1 FROM entitlements WHERE tenant_id = @tenant AND actor_id = @actor AND capability = @capability
    AND revoked_at IS NULL AND expires_at > @now`;

export class SqliteAccessRequests implements AccessRequestStore {
  private readonly journal: JournalWriter;
  private readonly reads: AccessReads;
  private readonly q;

  constructor(private readonly db: Db) {
    this.journal = new JournalWriter(db);
    this.reads = new AccessReads(db);
    this.q = {
      capability: db.prepare<[string, string], RequestableRow>(
        'SELECT requestable, owners, tier FROM capabilities WHERE tenant_id = ? AND name = ?',
      ),
      holds: db.prepare<[{ tenant: string; actor: string; capability: string; now: string }], unknown>(HOLDS),
      pending: db.prepare<[string, string, string], { id: string }>(
        `SELECT id FROM access_requests WHERE tenant_id = ? AND actor_id = ? AND capability = ? AND status = 'pending'`,
      ),
      insertRequest: db.prepare(
        `INSERT INTO access_requests (tenant_id, id, actor_id, capability, reason, duration_seconds, status, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)`,
      ),
      insertCard: db.prepare(
        `INSERT INTO manager_cards (tenant_id, id, request_id, recipient_id, role, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      revokeRequest: db.prepare(
        `UPDATE access_requests SET status = 'revoked', revoked_by = ?, revoked_at = ?
         WHERE tenant_id = ? AND id = ? AND status IN ('pending', 'approved')`,
      ),
      revokeEntitlement: db.prepare(
        `UPDATE entitlements SET revoked_at = ?, revoked_by = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL`,
      ),
    };
  }

  private async run<T>(what: string, fn: () => T): Promise<T> {
    try {
      return await writeTransaction(this.db, fn);
    } catch (err) {
      throw storeError(err, what);
    }
  }

  async request(input: NewAccessRequest): Promise<{ request: AccessRequestRecord; receipt: AccessReceipt }> {
    const { tenantId, actorId, capability } = input;
    const at = input.at.toISOString();
    return this.run(`access request for ${capability}`, () => {
      const requester = this.reads.actor(tenantId, actorId);
      if (!requester) throw new SvcError('forbidden', `${actorId} is not a registered actor of this tenant`);
      const cap = checkRequestable(capability, this.q.capability.get(tenantId, capability));
      checkNotHeldOrPending(
        capability,
        this.q.holds.get({ tenant: tenantId, actor: actorId, capability, now: at }) !== undefined,
        this.q.pending.get(tenantId, actorId, capability),
      );
      const recipients = cardRecipients(requester, JSON.parse(cap.owners) as string[]).filter(
        (r) => this.reads.actor(tenantId, r.recipientId)?.kind === 'human',
      );
      checkDeciders(capability, recipients);
      const id = newId('acr');
      this.q.insertRequest.run(tenantId, id, actorId, capability, input.reason, input.durationSeconds, at);
      for (const r of recipients) {
        this.q.insertCard.run(tenantId, newId('card'), id, r.recipientId, r.role, at);
      }
      const receipt = appendAccessRecord(this.journal, requestedEntry(input, id, cap, recipients));
      return { request: this.reads.record(this.reads.request(tenantId, id)!, input.at), receipt };
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
    const when = at.toISOString();
    return this.run(`access request ${id}`, () => {
      const row = this.reads.request(viewer.tenantId, id);
      if (!row) throw new SvcError('not_found', 'no such access request');
      const refusal = accessRevokeRefusal(facts(row), viewer, this.reads.deciders(row), at);
      if (refusal) throw refusal;
      this.q.revokeRequest.run(viewer.id, when, viewer.tenantId, id);
      if (row.entitlement_id !== null) {
        this.q.revokeEntitlement.run(when, viewer.id, viewer.tenantId, row.entitlement_id);
      }
      const receipt = appendAccessRecord(this.journal, requestRevokedEntry(row, viewer, when, note));
      return { request: this.reads.record(this.reads.request(viewer.tenantId, id)!, at), receipt };
    });
  }
}
