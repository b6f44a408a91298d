import { accessRevokeRefusal, cardRecipients, readsAccessRequest } from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import { randomId } from '../../core/ids.js';
import type {
  AccessReceipt,
  AccessRequestRecord,
  AccessRequestStore,
  NewAccessRequest,
} from '../access-ports.js';
import { appendAccessRecord } from './access-journal.js';
import { facts } from '../rows/access.js';
import { AccessReads } from './access-reads.js';
import { storeError, type Db } from './database.js';
import { JournalWriter } from './journal.js';
import { writeTransaction } from './write-lock.js';

// The same test the decision applies at step 6: a standing permission, or a live entitlement.
const HOLDS = `SELECT 1 FROM permissions WHERE tenant_id = @tenant AND actor_id = @actor AND capability = @capability
  UNION ALL SELECT 1 FROM entitlements WHERE tenant_id = @tenant AND actor_id = @actor AND capability = @capability
    AND revoked_at IS NULL AND expires_at > @now`;

const CATALOGUE = 'GET /v1/catalogue lists the capabilities you can request';

export class SqliteAccessRequests implements AccessRequestStore {
  private readonly journal: JournalWriter;
  private readonly reads: AccessReads;
  private readonly q;

  constructor(private readonly db: Db) {
    this.journal = new JournalWriter(db);
    this.reads = new AccessReads(db);
    this.q = {
      capability: db.prepare<[string, string], { requestable: number; owners: string; tier: number }>(
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
      const cap = this.q.capability.get(tenantId, capability);
      if (!cap || cap.requestable !== 1) {
        throw new SvcError(
          'forbidden',
          `${capability} is not in your catalogue: ${cap ? 'it is not requestable' : 'no such capability is registered'}`,
          { code: 'not_in_catalogue', field: 'capability', remedy: CATALOGUE },
        );
      }
      if (this.q.holds.get({ tenant: tenantId, actor: actorId, capability, now: at }) !== undefined) {
        throw new SvcError('conflict', `you already hold ${capability}`, {
          code: 'already_held',
          remedy: 'GET /v1/capabilities lists what you hold',
        });
      }
      const open = this.q.pending.get(tenantId, actorId, capability);
      if (open) {
        throw new SvcError('conflict', `access request ${open.id} for ${capability} is already pending`, {
          code: 'request_pending',
          remedy: `wait for its decision (\`svc access show ${open.id}\`), or revoke it first (\`svc access revoke ${open.id}\`)`,
        });
      }
      const recipients = cardRecipients(requester, JSON.parse(cap.owners) as string[]).filter(
        (r) => this.reads.actor(tenantId, r.recipientId)?.kind === 'human',
      );
      if (recipients.length === 0) {
        throw new SvcError(
          'conflict',
          `nobody can decide a request for ${capability}: you have no manager and it has no owner`,
          {
            code: 'no_decider',
            remedy: 'ask an administrator to name an owner: svc capability register … --owner <human>',
          },
        );
      }
      const id = randomId('acr');
      this.q.insertRequest.run(tenantId, id, actorId, capability, input.reason, input.durationSeconds, at);
      for (const r of recipients) {
        this.q.insertCard.run(tenantId, randomId('card'), id, r.recipientId, r.role, at);
      }
      const receipt = appendAccessRecord(this.journal, {
        tenantId,
        step: 'requested',
        actorId,
        subjectId: id,
        capability,
        tier: cap.tier,
        at,
        fields: {
          access_request_id: id,
          requester_id: actorId,
          access_reason: input.reason,
          duration_seconds: input.durationSeconds,
          recipients: recipients.map((r) => r.recipientId),
        },
      });
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
      if (!row) throw new SvcError('not_found', `no access request ${id}`);
      const refusal = accessRevokeRefusal(facts(row), viewer, this.reads.deciders(row), at);
      if (refusal) throw refusal;
      this.q.revokeRequest.run(viewer.id, when, viewer.tenantId, id);
      if (row.entitlement_id !== null) {
        this.q.revokeEntitlement.run(when, viewer.id, viewer.tenantId, row.entitlement_id);
      }
      const receipt = appendAccessRecord(this.journal, {
        tenantId: viewer.tenantId,
        step: 'revoked',
        actorId: viewer.id,
        subjectId: id,
        capability: row.capability,
        tier: row.tier ?? 0,
        at: when,
        fields: {
          access_request_id: id,
          requester_id: row.actor_id,
          previous_status: row.status,
          entitlement_id: row.entitlement_id,
          note,
        },
      });
      return { request: this.reads.record(this.reads.request(viewer.tenantId, id)!, at), receipt };
    });
  }
}
