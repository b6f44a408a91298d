import type { Actor } from '../../core/actor.js';
import { observe, presentGrant, recordGrantEffect, type EffectOps } from '../../core/effect.js';
import { runAsync, type Async, type UseCase } from '../../core/use-case.js';
import { intentToObserve, storedGrant, type GrantRow, type IntentToObserveRow } from '../rows/effect.js';
import type { SealedReceipt } from '../decision-ports.js';
import type { EffectStore, PresentedGrant, ReportedEffect } from '../effect-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { appendJournal } from './journal.js';
import { lockTenant } from './locks.js';

/** The reads and writes of grants and observed effects in one tenant transaction (core/effect.ts decides). */
export function effectOpsIn(tx: PgTx): Async<EffectOps> {
  return {
    grant: async (tenantId, grantId) => {
      const [g] = await tx.query<GrantRow>(
        `SELECT g.*, i.action, c.tier FROM grants g
         JOIN intents i ON i.tenant_id = g.tenant_id AND i.id = g.intent_id
         LEFT JOIN capabilities c ON c.tenant_id = g.tenant_id AND c.name = g.capability
         WHERE g.tenant_id = $1 AND g.id = $2`,
        [tenantId, grantId],
      );
      return g && storedGrant(g);
    },
    intentToObserve: async (tenantId, intentId) => {
      const [i] = await tx.query<IntentToObserveRow>(
        `SELECT i.id, i.task_id, i.actor_id, i.capability, i.action, i.outcome, c.custody, c.tier,
           EXISTS (SELECT 1 FROM journal j WHERE j.tenant_id = i.tenant_id AND j.intent_id = i.id
             AND j.kind = 'observation') AS observed
         FROM intents i LEFT JOIN capabilities c ON c.tenant_id = i.tenant_id AND c.name = i.capability
         WHERE i.tenant_id = $1 AND i.id = $2`,
        [tenantId, intentId],
      );
      return i && intentToObserve(i);
    },
    markPresented: async (tenantId, grantId, presentedBy, at) =>
      (
        await tx.query(
          `UPDATE grants SET presented_by = $1, presented_at = $2
           WHERE tenant_id = $3 AND id = $4 AND presented_by IS NULL RETURNING 1`,
          [presentedBy, at, tenantId, grantId],
        )
      ).length,
    markEffectRecorded: async (tenantId, grantId, presentedBy, at) =>
      (
        await tx.query(
          `UPDATE grants SET effect_recorded_at = $1
           WHERE tenant_id = $2 AND id = $3 AND presented_by = $4 AND effect_recorded_at IS NULL RETURNING 1`,
          [at, tenantId, grantId, presentedBy],
        )
      ).length,
    append: (record, at) => appendJournal(tx, record, at),
  };
}

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

  private async run<T>(tenantId: string, useCase: UseCase<EffectOps, T>): Promise<T> {
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, tenantId);
        return runAsync(useCase, effectOpsIn(tx));
      });
    } catch (err) {
      throw pgStoreError(err, 'the record');
    }
  }

  async presentGrant(tenantId: string, grantId: string, caller: Actor): Promise<PresentedGrant> {
    return this.run(tenantId, presentGrant(tenantId, grantId, caller, this.clock));
  }

  async recordGrantEffect(
    tenantId: string,
    grantId: string,
    caller: Actor,
    effect: ReportedEffect,
  ): Promise<SealedReceipt> {
    return this.run(tenantId, recordGrantEffect(tenantId, grantId, caller, effect, this.clock));
  }

  async observe(
    tenantId: string,
    intentId: string,
    caller: Actor,
    effect: ReportedEffect,
  ): Promise<SealedReceipt> {
    return this.run(tenantId, observe(tenantId, intentId, caller, effect, this.clock));
  }
}
