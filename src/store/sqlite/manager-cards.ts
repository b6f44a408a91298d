import type { CardStatus } from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import type {
  AccessReceipt,
  AccessRequestRecord,
  CardDecisionInput,
  EntitlementRecord,
  ManagerCardRecord,
  ManagerCardStore,
} from '../access-ports.js';
import { appendAccessRecord } from './access-journal.js';
import type { CardRow } from '../rows/access.js';
import { cardDecisionEntry, planCardDecision } from '../rows/card-decision.js';
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
      if (!card) throw new SvcError('not_found', 'no such manager card');
      const row = this.reads.request(tenantId, card.request_id)!;
      const plan = planCardDecision(row, card, decider, this.reads.deciders(row), input);
      const changed = this.q.decide.run(
        plan.status,
        input.decision,
        decider.id,
        at,
        plan.seconds,
        input.note,
        plan.entitlementId,
        tenantId,
        row.id,
      ).changes;
      // planCardDecision saw it pending under this same write lock.
      if (changed !== 1) throw new Error('the access request changed under the write lock');
      if (plan.entitlementId !== null) {
        this.q.insertEntitlement.run(
          tenantId,
          plan.entitlementId,
          row.actor_id,
          row.capability,
          row.id,
          at,
          plan.expiresAt,
        );
      }
      const receipt = appendAccessRecord(this.journal, cardDecisionEntry(row, card, decider, input, plan));
      const after = this.reads.request(tenantId, row.id)!;
      return {
        card: this.reads.cardRecord(card, after, input.at),
        request: this.reads.record(after, input.at),
        entitlement:
          plan.entitlementId === null
            ? null
            : entitlementById(this.db, tenantId, plan.entitlementId, input.at)!,
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
