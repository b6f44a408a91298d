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
import { pgStoreError, type PgDb } from './database.js';
import { entitlementById } from './entitlements.js';
import { lockTenant } from './locks.js';

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

  async decide(input: CardDecisionInput): Promise<{
    card: ManagerCardRecord;
    request: AccessRequestRecord;
    entitlement: EntitlementRecord | null;
    receipt: AccessReceipt;
  }> {
    const { tenantId, cardId } = input;
    const at = input.at.toISOString();
    try {
      return await this.db.tx(async (tx) => {
        // Before anything is read: the first decision of a card wins on every replica.
        await lockTenant(tx, tenantId);
        const reads = new AccessReads(tx);
        const decider = await reads.actor(tenantId, input.deciderId);
        if (!decider)
          throw new SvcError('forbidden', `${input.deciderId} is not a registered actor of this tenant`);
        const [card] = await tx.query<CardRow>(
          'SELECT id, request_id, recipient_id, role, created_at FROM manager_cards WHERE tenant_id = $1 AND id = $2',
          [tenantId, cardId],
        );
        if (!card) throw new SvcError('not_found', 'no such manager card');
        const row = (await reads.request(tenantId, card.request_id))!;
        const plan = planCardDecision(row, card, decider, await reads.deciders(row), input);
        const changed = await tx.query(
          `UPDATE access_requests SET status = $1, decision = $2, decided_by = $3, decided_at = $4,
             granted_seconds = $5, note = $6, entitlement_id = $7
           WHERE tenant_id = $8 AND id = $9 AND status = 'pending' RETURNING 1`,
          [
            plan.status,
            input.decision,
            decider.id,
            at,
            plan.seconds,
            input.note,
            plan.entitlementId,
            tenantId,
            row.id,
          ],
        );
        // planCardDecision saw it pending under this same tenant lock.
        if (changed.length !== 1) throw new Error('the access request changed under the tenant lock');
        if (plan.entitlementId !== null) {
          await tx.query(
            `INSERT INTO entitlements (tenant_id, id, actor_id, capability, access_request_id, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)`,
            [tenantId, plan.entitlementId, row.actor_id, row.capability, row.id, at, plan.expiresAt],
          );
        }
        const receipt = await appendAccessRecord(tx, cardDecisionEntry(row, card, decider, input, plan));
        const after = (await reads.request(tenantId, row.id))!;
        return {
          card: reads.cardRecord(card, after, input.at),
          request: await reads.record(after, input.at),
          entitlement:
            plan.entitlementId === null
              ? null
              : (await entitlementById(tx, tenantId, plan.entitlementId, input.at))!,
          receipt,
        };
      });
    } catch (err) {
      throw pgStoreError(err, `manager card ${cardId}`);
    }
  }
}
