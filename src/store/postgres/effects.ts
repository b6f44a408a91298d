import type { Actor } from '../../core/actor.js';
import { effectRecord, type EffectSubject } from '../../core/records/effect-record.js';
import { receiptOf } from '../../core/records/sealed-receipt.js';
import {
  checkPresentable,
  grantEffectSubject,
  observationSubject,
  ownGrant,
  presentedGrant,
  type GrantRow,
  type IntentToObserveRow,
} from '../rows/effect.js';
import type { SealedReceipt } from '../decision-ports.js';
import type { EffectStore, PresentedGrant, ReportedEffect } from '../effect-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { appendJournal } from './journal.js';
import { lockTenant } from './locks.js';

/**
 * Grants and observed effects on PostgreSQL: each under the tenant lock, so a grant is
 * presented once and an effect journaled once whichever replicas the calls reach; the
 * guarded UPDATEs are the backstop.
 */
export class PgEffects implements EffectStore {
  constructor(
    private readonly db: PgDb,
    private readonly clock: () => Date,
  ) {}

  private async tx<T>(tenantId: string, fn: (tx: PgTx) => Promise<T>): Promise<T> {
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, tenantId);
        return fn(tx);
      });
    } catch (err) {
      throw pgStoreError(err, 'the record');
    }
  }

  async presentGrant(tenantId: string, grantId: string, caller: Actor): Promise<PresentedGrant> {
    return this.tx(tenantId, async (tx) => {
      const now = this.clock();
      const g = await readGrant(tx, tenantId, grantId, caller);
      checkPresentable(g, grantId, now);
      const at = now.toISOString();
      const changed = await tx.query(
        `UPDATE grants SET presented_by = $1, presented_at = $2
         WHERE tenant_id = $3 AND id = $4 AND presented_by IS NULL RETURNING 1`,
        [caller.id, at, tenantId, grantId],
      );
      if (changed.length !== 1) throw new Error('the grant changed under the tenant lock');
      return presentedGrant(g, grantId, caller, at);
    });
  }

  async recordGrantEffect(
    tenantId: string,
    grantId: string,
    caller: Actor,
    effect: ReportedEffect,
  ): Promise<SealedReceipt> {
    return this.tx(tenantId, async (tx) => {
      const g = await readGrant(tx, tenantId, grantId, caller);
      const on = grantEffectSubject(g, grantId, caller);
      const at = this.clock().toISOString();
      const changed = await tx.query(
        `UPDATE grants SET effect_recorded_at = $1
         WHERE tenant_id = $2 AND id = $3 AND effect_recorded_at IS NULL RETURNING 1`,
        [at, tenantId, grantId],
      );
      if (changed.length !== 1) throw new Error('the grant changed under the tenant lock');
      return seal(tx, 'grant_effect', tenantId, caller, on, effect, at);
    });
  }

  async observe(
    tenantId: string,
    intentId: string,
    caller: Actor,
    effect: ReportedEffect,
  ): Promise<SealedReceipt> {
    return this.tx(tenantId, async (tx) => {
      const [i] = await tx.query<IntentToObserveRow>(
        `SELECT i.id, i.task_id, i.actor_id, i.capability, i.action, i.outcome, c.custody, c.tier,
           EXISTS (SELECT 1 FROM journal j WHERE j.tenant_id = i.tenant_id AND j.intent_id = i.id
             AND j.kind = 'observation') AS observed
         FROM intents i LEFT JOIN capabilities c ON c.tenant_id = i.tenant_id AND c.name = i.capability
         WHERE i.tenant_id = $1 AND i.id = $2`,
        [tenantId, intentId],
      );
      const on = observationSubject(i, intentId, caller);
      return seal(tx, 'observation', tenantId, caller, on, effect, this.clock().toISOString());
    });
  }
}

async function readGrant(tx: PgTx, tenantId: string, grantId: string, caller: Actor): Promise<GrantRow> {
  const [g] = await tx.query<GrantRow>(
    `SELECT g.*, i.action, c.tier FROM grants g
     JOIN intents i ON i.tenant_id = g.tenant_id AND i.id = g.intent_id
     LEFT JOIN capabilities c ON c.tenant_id = g.tenant_id AND c.name = g.capability
     WHERE g.tenant_id = $1 AND g.id = $2`,
    [tenantId, grantId],
  );
  return ownGrant(g, grantId, caller);
}

async function seal(
  tx: PgTx,
  kind: 'grant_effect' | 'observation',
  tenantId: string,
  caller: Actor,
  on: EffectSubject,
  effect: ReportedEffect,
  at: string,
): Promise<SealedReceipt> {
  const record = effectRecord({ kind, tenantId, actorId: caller.id, on, effect, at });
  return receiptOf(record, await appendJournal(tx, record, at));
}
