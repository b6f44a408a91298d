import type { CardStatus } from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import { cardDecision, type CardDecided, type CardDecisionOps } from '../../core/card-decision.js';
import { runSync } from '../../core/use-case.js';
import type { CardDecisionInput, DecidedCard, ManagerCardRecord, ManagerCardStore } from '../access-ports.js';
import { cardToDecide, type CardRow } from '../rows/access.js';
import { cardDecisionValues, ENTITLEMENT_COLUMNS, entitlementValues } from '../rows/card-decision.js';
import { AccessReads } from './access-reads.js';
import { storeError, type Db } from './database.js';
import { entitlementById } from './entitlements.js';
import { JournalWriter } from './journal.js';
import { writeTransaction } from './write-lock.js';
import { sqliteOutbox } from './outbox.js';

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
           note = ?, entitlement_id = ? WHERE tenant_id = ? AND id = ? AND status = ?`,
      ),
      insertEntitlement: db.prepare(
        `INSERT INTO entitlements (${ENTITLEMENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`,
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

  async decide(input: CardDecisionInput): Promise<CardDecided<DecidedCard>> {
    try {
      return await writeTransaction(
        this.db,
        this.db.transaction(() => runSync(cardDecision<DecidedCard>(input), this.decisionOps())),
      );
    } catch (err) {
      throw storeError(err, `manager card ${input.cardId}`);
    }
  }

  /**
   * The reads and writes core/card-decision.ts asks for, answered at once inside the write
   * transaction. A seam: a test wraps it to change the request before the guarded write.
   */
  protected decisionOps(): CardDecisionOps<DecidedCard> {
    const { q, reads } = this;
    return {
      ...sqliteOutbox(this.db),
      actor: (tenantId, actorId) => reads.actor(tenantId, actorId),
      card: (tenantId, cardId) => {
        const card = q.card.get(tenantId, cardId);
        if (!card) return undefined;
        const row = reads.request(tenantId, card.request_id)!;
        return cardToDecide(card, row, reads.deciders(row));
      },
      decide: (w) => q.decide.run(...cardDecisionValues(w)).changes,
      grant: (e) => void q.insertEntitlement.run(...entitlementValues(e)),
      append: (record, at) => this.journal.append(record, at),
      decided: (tenantId, cardId, entitlementId, now) => {
        const card = q.card.get(tenantId, cardId)!;
        const after = reads.request(tenantId, card.request_id)!;
        return {
          card: reads.cardRecord(card, after, now),
          request: reads.record(after, now),
          entitlement:
            entitlementId === null ? null : entitlementById(this.db, tenantId, entitlementId, now)!,
        };
      },
    };
  }
}
