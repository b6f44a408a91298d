import type { CardStatus } from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import { cardDecision, type CardDecided, type CardDecisionOps } from '../../core/card-decision.js';
import { runAsync, type Async } from '../../core/use-case.js';
import type { CardDecisionInput, DecidedCard, ManagerCardRecord, ManagerCardStore } from '../access-ports.js';
import { cardToDecide, type CardRow } from '../rows/access.js';
import { cardDecisionValues, ENTITLEMENT_COLUMNS, entitlementValues } from '../rows/card-decision.js';
import { AccessReads } from './access-reads.js';
import { appendJournal } from './journal.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { entitlementById } from './entitlements.js';
import { lockTenant } from './locks.js';
import { pgOutbox } from './outbox.js';

export class PgManagerCards implements ManagerCardStore {
  constructor(private readonly db: PgDb) {}

  async list(viewer: Actor, filter: { status?: CardStatus }, now: Date): Promise<ManagerCardRecord[]> {
    return this.db.tx(async (tx) => {
      const reads = new AccessReads(tx);
      const rows = await tx.query<CardRow>(
        `SELECT m.id, m.request_id, m.recipient_id, m.role, m.created_at
         FROM manager_cards m JOIN access_requests r ON r.tenant_id = m.tenant_id AND r.id = m.request_id
         WHERE m.tenant_id = $1 AND m.recipient_id = $2 AND (NOT $3 OR r.status = 'pending')
         ORDER BY m.created_at, m.id`,
        [viewer.tenantId, viewer.id, filter.status === 'pending'],
      );
      const out: ManagerCardRecord[] = [];
      for (const c of rows) {
        const card = reads.cardRecord(c, (await reads.request(viewer.tenantId, c.request_id))!, now);
        if (filter.status === undefined || card.status === filter.status) out.push(card);
      }
      return out;
    });
  }

  async decide(input: CardDecisionInput): Promise<CardDecided<DecidedCard>> {
    try {
      return await this.db.tx(async (tx) => {
        // Before anything is read: the first decision of a card wins on every replica.
        await lockTenant(tx, input.tenantId);
        return runAsync(cardDecision<DecidedCard>(input), this.decisionOpsIn(tx));
      });
    } catch (err) {
      throw pgStoreError(err, `manager card ${input.cardId}`);
    }
  }

  /**
   * The reads and writes core/card-decision.ts asks for, in the tenant's transaction; the
   * card read first is the one shown once decided. A seam: a test wraps it to change the
   * request, from another connection, before the guarded write.
   */
  protected decisionOpsIn(tx: PgTx): Async<CardDecisionOps<DecidedCard>> {
    const reads = new AccessReads(tx);
    let loaded: CardRow | undefined;
    return {
      ...pgOutbox(tx),
      actor: (tenantId, actorId) => reads.actor(tenantId, actorId),
      card: async (tenantId, cardId) => {
        [loaded] = await tx.query<CardRow>(
          'SELECT id, request_id, recipient_id, role, created_at FROM manager_cards WHERE tenant_id = $1 AND id = $2',
          [tenantId, cardId],
        );
        if (!loaded) return undefined;
        const row = (await reads.request(tenantId, loaded.request_id))!;
        return cardToDecide(loaded, row, await reads.deciders(row));
      },
      decide: async (w) =>
        (
          await tx.query(
            `UPDATE access_requests SET status = $1, decision = $2, decided_by = $3, decided_at = $4,
               granted_seconds = $5, note = $6, entitlement_id = $7
             WHERE tenant_id = $8 AND id = $9 AND status = $10 RETURNING 1`,
            cardDecisionValues(w),
          )
        ).length,
      grant: async (e) => {
        await tx.query(
          `INSERT INTO entitlements (${ENTITLEMENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          entitlementValues(e),
        );
      },
      append: (record, at) => appendJournal(tx, record, at),
      decided: async (tenantId, _cardId, entitlementId, now) => {
        const card = loaded!;
        const after = (await reads.request(tenantId, card.request_id))!;
        return {
          card: reads.cardRecord(card, after, now),
          request: await reads.record(after, now),
          entitlement:
            entitlementId === null ? null : (await entitlementById(tx, tenantId, entitlementId, now))!,
        };
      },
    };
  }
}
