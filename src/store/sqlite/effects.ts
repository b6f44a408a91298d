import type { Actor } from '../../core/actor.js';
import { observe, presentGrant, recordGrantEffect, type EffectOps } from '../../core/effect.js';
import { runSync } from '../../core/use-case.js';
import { intentToObserve, storedGrant, type GrantRow, type IntentToObserveRow } from '../rows/effect.js';
import type { SealedReceipt } from '../decision-ports.js';
import type { EffectStore, PresentedGrant, ReportedEffect } from '../effect-ports.js';
import { storeError, type Db } from './database.js';
import { JournalWriter } from './journal.js';
import { writeTransaction } from './write-lock.js';

/**
 * The intent an observation reports on, and whether one is already journaled. The EXISTS runs
 * inside the write transaction, so it must stay an index probe (`journal_observations`), never a
 * walk of the tenant's journal.
 */
export const INTENT_TO_OBSERVE_SQL = `SELECT i.id, i.task_id, i.actor_id, i.capability, i.action, i.outcome, c.custody, c.tier,
    EXISTS (SELECT 1 FROM journal j WHERE j.tenant_id = i.tenant_id AND j.intent_id = i.id AND j.kind = 'observation') AS observed
  FROM intents i LEFT JOIN capabilities c ON c.tenant_id = i.tenant_id AND c.name = i.capability
  WHERE i.tenant_id = ? AND i.id = ?`;

/** The reads and writes of grants and observed effects (core/effect.ts decides). */
export function effectOps(db: Db): EffectOps {
  const journal = new JournalWriter(db);
  const q = {
    grant: db.prepare<[string, string], GrantRow>(
      `SELECT g.*, i.action, c.tier FROM grants g
       JOIN intents i ON i.tenant_id = g.tenant_id AND i.id = g.intent_id
       LEFT JOIN capabilities c ON c.tenant_id = g.tenant_id AND c.name = g.capability
       WHERE g.tenant_id = ? AND g.id = ?`,
    ),
    present: db.prepare(
      'UPDATE grants SET presented_by = ?, presented_at = ? WHERE tenant_id = ? AND id = ? AND presented_by IS NULL',
    ),
    effected: db.prepare(
      `UPDATE grants SET effect_recorded_at = ?
       WHERE tenant_id = ? AND id = ? AND presented_by = ? AND effect_recorded_at IS NULL`,
    ),
    intent: db.prepare<[string, string], IntentToObserveRow>(INTENT_TO_OBSERVE_SQL),
  };
  return {
    grant: (tenantId, grantId) => {
      const g = q.grant.get(tenantId, grantId);
      return g && storedGrant(g);
    },
    intentToObserve: (tenantId, intentId) => {
      const i = q.intent.get(tenantId, intentId);
      return i && intentToObserve(i);
    },
    markPresented: (tenantId, grantId, presentedBy, at) =>
      q.present.run(presentedBy, at, tenantId, grantId).changes,
    markEffectRecorded: (tenantId, grantId, presentedBy, at) =>
      q.effected.run(at, tenantId, grantId, presentedBy).changes,
    append: (record, at) => journal.append(record, at),
  };
}

/** Grants and observed effects: each state change and its journal record in one transaction. */
export class SqliteEffects implements EffectStore {
  private readonly ops: EffectOps;

  constructor(
    private readonly db: Db,
    private readonly clock: () => Date,
  ) {
    this.ops = effectOps(db);
  }

  private async tx<T>(fn: () => T): Promise<T> {
    try {
      return await writeTransaction(this.db, fn);
    } catch (err) {
      throw storeError(err, 'the record');
    }
  }

  async presentGrant(tenantId: string, grantId: string, caller: Actor): Promise<PresentedGrant> {
    return this.tx(() => runSync(presentGrant(tenantId, grantId, caller, this.clock), this.ops));
  }

  async recordGrantEffect(
    tenantId: string,
    grantId: string,
    caller: Actor,
    effect: ReportedEffect,
  ): Promise<SealedReceipt> {
    return this.tx(() => runSync(recordGrantEffect(tenantId, grantId, caller, effect, this.clock), this.ops));
  }

  async observe(
    tenantId: string,
    intentId: string,
    caller: Actor,
    effect: ReportedEffect,
  ): Promise<SealedReceipt> {
    return this.tx(() => runSync(observe(tenantId, intentId, caller, effect, this.clock), this.ops));
  }
}
