import { cardDecisionRefusal, grantedSeconds, type CardStatus } from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import { randomId } from '../../core/ids.js';
import type {
  AccessReceipt,
  AccessRequestRecord,
  CardDecisionInput,
  EntitlementRecord,
  ManagerCardRecord,
  ManagerCardStore,
} from '../access-ports.js';
import { appendAccessRecord } from './access-journal.js';
import { facts, type CardRow } from '../rows/access.js';
import { AccessReads } from './access-reads.js';
import { storeError, type Db } from './database.js';
import { entitlementById } from './entitlements.js';
import { JournalWriter } from './journal.js';
import { writeTransaction } from './write-lock.js';

export class SqliteManagerCards implements ManagerCardStore {
  private readonly journal: JournalWriter;
  private readonly reads: AccessReads;
  private readonly q;

  constructor(private readonly db: Db) {
    this.journal = new JournalWriter(db);
    this.reads = new AccessReads(db);
    this.q = {
      card: db.prepare<[string, string], CardRow>(
        'SELECT id, request_id, recipient_id, role, created_at FROM manager_cards WHERE tenant_id = ? AND id = ?',
      ),
      cardsFor: db.prepare<[string, string, number], CardRow>(
        `SELECT m.id, m.request_id, m.recipient_id, m.role, m.created_at
         FROM manager_cards m JOIN access_requests r ON r.tenant_id = m.tenant_id AND r.id = m.request_id
         WHERE m.tenant_id = ? AND m.recipient_id = ? AND (? = 0 OR r.status = 'pending')
         ORDER BY m.created_at, m.id`,
      ),
      decide: db.prepare(
        `UPDATE access_requests SET status = ?, decision = ?, decided_by = ?, decided_at = ?, granted_seconds = ?,
           note = ?, entitlement_id = ? WHERE tenant_id = ? AND id = ? AND status = 'pending'`,
      ),
      insertEntitlement: db.prepare(
        `INSERT INTO entitlements (tenant_id, id, actor_id, capability, access_request_id, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
    };
  }

  async list(viewer: Actor, filter: { status?: CardStatus }, now: Date): Promise<ManagerCardRecord[]> {
    const rows = this.q.cardsFor.all(viewer.tenantId, viewer.id, filter.status === 'pending' ? 1 : 0);
    const out: ManagerCardRecord[] = [];
    for (const c of rows) {
      const card = this.reads.cardRecord(c, this.reads.request(viewer.tenantId, c.request_id)!, now);
      if (filter.status === undefined || card.status === filter.status) out.push(card);
    }
    return out;
  }

  async decide(input: CardDecisionInput): Promise<{
    card: ManagerCardRecord;
    request: AccessRequestRecord;
    entitlement: EntitlementRecord | null;
    receipt: AccessReceipt;
  }> {
    const { tenantId, cardId } = input;
    const at = input.at.toISOString();
    const tx = this.db.transaction(() => {
      const decider = this.reads.actor(tenantId, input.deciderId);
      if (!decider)
        throw new SvcError('forbidden', `${input.deciderId} is not a registered actor of this tenant`);
      const card = this.q.card.get(tenantId, cardId);
      if (!card) throw new SvcError('not_found', `no manager card ${cardId}`);
      const row = this.reads.request(tenantId, card.request_id)!;
      const refusal = cardDecisionRefusal(
        facts(row),
        { id: card.id, recipientId: card.recipient_id },
        decider,
        this.reads.deciders(row),
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
      const after = this.reads.request(tenantId, row.id)!;
      return {
        card: this.reads.cardRecord(card, after, input.at),
        request: this.reads.record(after, input.at),
        entitlement:
          entitlementId === null ? null : entitlementById(this.db, tenantId, entitlementId, input.at)!,
        receipt,
      };
    });
    try {
      return await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, `manager card ${cardId}`);
    }
  }
}
