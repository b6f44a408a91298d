import {
  accessRevokeRefusal,
  accessStatus,
  cardDecisionRefusal,
  cardRecipients,
  cardStatus,
  grantedSeconds,
  readsAccessRequest,
  type AccessDecision,
  type AccessFacts,
  type CardRole,
  type CardStatus,
  type StoredAccessStatus,
} from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import { randomId } from '../../core/ids.js';
import type {
  AccessReceipt,
  AccessRequestRecord,
  AccessStore,
  CardDecisionInput,
  EntitlementRecord,
  ManagerCardRecord,
  NewAccessRequest,
} from '../access-ports.js';
import { appendAccessRecord } from './access-journal.js';
import { storeError, type Db } from './database.js';
import { entitlementById } from './entitlements.js';
import { toActor, type ActorRow } from './identity.js';
import { JournalWriter } from './journal.js';

interface RequestRow {
  tenant_id: string;
  id: string;
  actor_id: string;
  capability: string;
  reason: string;
  duration_seconds: number;
  status: StoredAccessStatus;
  decision: AccessDecision | null;
  decided_by: string | null;
  decided_at: string | null;
  granted_seconds: number | null;
  note: string | null;
  entitlement_id: string | null;
  revoked_by: string | null;
  revoked_at: string | null;
  created_at: string;
  entitlement_expires_at: string | null;
  /** the capability's owners as registered now (JSON array), null if it is gone */
  owners: string | null;
  tier: number | null;
}

interface CardRow {
  id: string;
  request_id: string;
  recipient_id: string;
  role: CardRole;
  created_at: string;
}

const REQUEST_SELECT = `SELECT r.*, e.expires_at AS entitlement_expires_at, c.owners, c.tier
  FROM access_requests r
  LEFT JOIN entitlements e ON e.tenant_id = r.tenant_id AND e.id = r.entitlement_id
  LEFT JOIN capabilities c ON c.tenant_id = r.tenant_id AND c.name = r.capability`;

const HOLDS = `SELECT 1 FROM permissions WHERE tenant_id = @tenant AND actor_id = @actor AND capability = @capability
  UNION ALL SELECT 1 FROM entitlements WHERE tenant_id = @tenant AND actor_id = @actor AND capability = @capability
    AND revoked_at IS NULL AND expires_at > @now`;

const facts = (r: RequestRow): AccessFacts => ({
  id: r.id,
  status: r.status,
  requesterId: r.actor_id,
  capability: r.capability,
  durationSeconds: r.duration_seconds,
  decision: r.decision,
  decidedBy: r.decided_by,
  entitlementExpiresAt: r.entitlement_expires_at,
});

const ownersOf = (r: { owners: string | null }): string[] =>
  r.owners === null ? [] : (JSON.parse(r.owners) as string[]);

export class SqliteAccess implements AccessStore {
  private readonly journal: JournalWriter;
  private readonly q;

  constructor(private readonly db: Db) {
    this.journal = new JournalWriter(db);
    this.q = {
      request: db.prepare<[string, string], RequestRow>(
        `${REQUEST_SELECT} WHERE r.tenant_id = ? AND r.id = ?`,
      ),
      cardsOf: db.prepare<[string, string], CardRow>(
        `SELECT id, request_id, recipient_id, role, created_at FROM manager_cards
         WHERE tenant_id = ? AND request_id = ? ORDER BY role = 'owner', recipient_id`,
      ),
      card: db.prepare<[string, string], CardRow>(
        'SELECT id, request_id, recipient_id, role, created_at FROM manager_cards WHERE tenant_id = ? AND id = ?',
      ),
      cardsFor: db.prepare<[string, string, number], CardRow & { r_status: string }>(
        `SELECT m.id, m.request_id, m.recipient_id, m.role, m.created_at, r.status AS r_status
         FROM manager_cards m JOIN access_requests r ON r.tenant_id = m.tenant_id AND r.id = m.request_id
         WHERE m.tenant_id = ? AND m.recipient_id = ? AND (? = 0 OR r.status = 'pending')
         ORDER BY m.created_at, m.id`,
      ),
      actor: db.prepare<[string, string], ActorRow>('SELECT * FROM actors WHERE tenant_id = ? AND id = ?'),
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
      decide: db.prepare(
        `UPDATE access_requests SET status = ?, decision = ?, decided_by = ?, decided_at = ?, granted_seconds = ?,
           note = ?, entitlement_id = ? WHERE tenant_id = ? AND id = ? AND status = 'pending'`,
      ),
      insertEntitlement: db.prepare(
        `INSERT INTO entitlements (tenant_id, id, actor_id, capability, access_request_id, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
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

  private actorOf(tenantId: string, id: string): Actor | undefined {
    const row = this.q.actor.get(tenantId, id);
    return row && toActor(row);
  }

  /** The request's deciders as registration stands now: the requester's manager and the capability's owners. */
  private deciders(r: RequestRow): string[] {
    const requester = this.actorOf(r.tenant_id, r.actor_id);
    return requester ? cardRecipients(requester, ownersOf(r)).map((c) => c.recipientId) : [];
  }

  private record(r: RequestRow, now: Date): AccessRequestRecord {
    const f = facts(r);
    return {
      id: r.id,
      tenantId: r.tenant_id,
      actorId: r.actor_id,
      capability: r.capability,
      reason: r.reason,
      durationSeconds: r.duration_seconds,
      status: accessStatus(f, now),
      decision: r.decision,
      decidedBy: r.decided_by,
      decidedAt: r.decided_at,
      grantedSeconds: r.granted_seconds,
      note: r.note,
      entitlementId: r.entitlement_id,
      entitlementExpiresAt: r.entitlement_expires_at,
      revokedBy: r.revoked_by,
      revokedAt: r.revoked_at,
      createdAt: r.created_at,
      cards: this.q.cardsOf.all(r.tenant_id, r.id).map((c) => ({
        cardId: c.id,
        recipientId: c.recipient_id,
        role: c.role,
        status: cardStatus(f, c.recipient_id),
      })),
    };
  }

  private cardRecord(c: CardRow, r: RequestRow, now: Date): ManagerCardRecord {
    const f = facts(r);
    return {
      id: c.id,
      requestId: r.id,
      recipientId: c.recipient_id,
      role: c.role,
      status: cardStatus(f, c.recipient_id),
      requestStatus: accessStatus(f, now),
      requesterId: r.actor_id,
      capability: r.capability,
      reason: r.reason,
      durationSeconds: r.duration_seconds,
      decidedBy: r.decided_by,
      decidedAt: r.decided_at,
      createdAt: c.created_at,
    };
  }

  private run<T>(what: string, fn: () => T): T {
    try {
      return this.db.transaction(fn).immediate();
    } catch (err) {
      throw storeError(err, what);
    }
  }

  async request(input: NewAccessRequest): Promise<{ request: AccessRequestRecord; receipt: AccessReceipt }> {
    const { tenantId, actorId, capability } = input;
    const at = input.at.toISOString();
    return this.run(`access request for ${capability}`, () => {
      const requester = this.actorOf(tenantId, actorId);
      if (!requester) throw new SvcError('forbidden', `${actorId} is not a registered actor of this tenant`);
      const cap = this.q.capability.get(tenantId, capability);
      const catalogue = 'GET /v1/catalogue lists the capabilities you can request';
      if (!cap || cap.requestable !== 1) {
        throw new SvcError(
          'forbidden',
          `${capability} is not in your catalogue: ${cap ? 'it is not requestable' : 'no such capability is registered'}`,
          { code: 'not_in_catalogue', field: 'capability', remedy: catalogue },
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
          remedy: `wait for its decision (GET /v1/access-requests/${open.id}), or revoke it first`,
        });
      }
      const recipients = cardRecipients(requester, JSON.parse(cap.owners) as string[]).filter(
        (r) => this.actorOf(tenantId, r.recipientId)?.kind === 'human',
      );
      if (recipients.length === 0) {
        throw new SvcError(
          'conflict',
          `nobody can decide a request for ${capability}: you have no manager and it has no owner`,
          {
            code: 'no_decider',
            remedy: `ask an administrator to name an owner: svc capability register … --owner <human>`,
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
      return { request: this.record(this.q.request.get(tenantId, id)!, input.at), receipt };
    });
  }

  async get(viewer: Actor, id: string, now: Date): Promise<AccessRequestRecord | undefined> {
    const row = this.q.request.get(viewer.tenantId, id);
    if (!row) return undefined;
    const readers = [
      ...this.deciders(row),
      ...this.q.cardsOf.all(row.tenant_id, row.id).map((c) => c.recipient_id),
    ];
    return readsAccessRequest(viewer, facts(row), readers) ? this.record(row, now) : undefined;
  }

  async revoke(
    viewer: Actor,
    id: string,
    note: string | null,
    at: Date,
  ): Promise<{ request: AccessRequestRecord; receipt: AccessReceipt }> {
    const when = at.toISOString();
    return this.run(`access request ${id}`, () => {
      const row = this.q.request.get(viewer.tenantId, id);
      if (!row) throw new SvcError('not_found', `no access request ${id}`);
      const refusal = accessRevokeRefusal(facts(row), viewer, this.deciders(row), at);
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
      return { request: this.record(this.q.request.get(viewer.tenantId, id)!, at), receipt };
    });
  }

  async cards(viewer: Actor, filter: { status?: CardStatus }, now: Date): Promise<ManagerCardRecord[]> {
    const rows = this.q.cardsFor.all(viewer.tenantId, viewer.id, filter.status === 'pending' ? 1 : 0);
    const out: ManagerCardRecord[] = [];
    for (const c of rows) {
      const card = this.cardRecord(c, this.q.request.get(viewer.tenantId, c.request_id)!, now);
      if (filter.status === undefined || card.status === filter.status) out.push(card);
    }
    return out;
  }

  async decideCard(input: CardDecisionInput): Promise<{
    card: ManagerCardRecord;
    request: AccessRequestRecord;
    entitlement: EntitlementRecord | null;
    receipt: AccessReceipt;
  }> {
    const { tenantId, cardId } = input;
    const at = input.at.toISOString();
    return this.run(`manager card ${cardId}`, () => {
      const card = this.q.card.get(tenantId, cardId);
      const decider = this.actorOf(tenantId, input.deciderId);
      if (!decider)
        throw new SvcError('forbidden', `${input.deciderId} is not a registered actor of this tenant`);
      if (!card) throw new SvcError('not_found', `no manager card ${cardId}`);
      const row = this.q.request.get(tenantId, card.request_id)!;
      const refusal = cardDecisionRefusal(
        facts(row),
        { id: card.id, recipientId: card.recipient_id },
        decider,
        this.deciders(row),
        input.at,
      );
      if (refusal) throw refusal;
      if (input.decision === 'deny' && input.durationSeconds !== undefined) {
        throw new SvcError('invalid_request', 'duration_seconds: only an approval grants a duration', {
          field: 'duration_seconds',
        });
      }
      const approve = input.decision === 'approve';
      const seconds = approve ? grantedSeconds(row.duration_seconds, input.durationSeconds) : null;
      const entitlementId = approve ? randomId('ent') : null;
      const expiresAt = seconds === null ? null : new Date(input.at.getTime() + seconds * 1000).toISOString();
      const changed = this.q.decide.run(
        approve ? 'approved' : 'denied',
        input.decision,
        decider.id,
        at,
        seconds,
        input.note,
        entitlementId,
        tenantId,
        row.id,
      ).changes;
      // cardDecisionRefusal saw it pending under this same write lock.
      if (changed !== 1) throw new Error('the access request changed under the write lock');
      if (entitlementId !== null) {
        this.q.insertEntitlement.run(
          tenantId,
          entitlementId,
          row.actor_id,
          row.capability,
          row.id,
          at,
          expiresAt,
        );
      }
      const receipt = appendAccessRecord(this.journal, {
        tenantId,
        step: approve ? 'approved' : 'denied',
        actorId: decider.id,
        subjectId: row.id,
        capability: row.capability,
        tier: row.tier ?? 0,
        at,
        fields: {
          access_request_id: row.id,
          card_id: card.id,
          requester_id: row.actor_id,
          decision: input.decision,
          duration_seconds: row.duration_seconds,
          granted_seconds: seconds,
          entitlement_id: entitlementId,
          expires_at: expiresAt,
          note: input.note,
        },
      });
      const after = this.q.request.get(tenantId, row.id)!;
      return {
        card: this.cardRecord(card, after, input.at),
        request: this.record(after, input.at),
        entitlement:
          entitlementId === null ? null : entitlementById(this.db, tenantId, entitlementId, input.at)!,
        receipt,
      };
    });
  }
}
