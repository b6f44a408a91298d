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

/** Grants and observed effects: each state change and its journal record in one transaction. */
export class SqliteEffects implements EffectStore {
  private readonly journal: JournalWriter;
  private readonly q;

  constructor(
    private readonly db: Db,
    private readonly clock: () => Date,
  ) {
    this.journal = new JournalWriter(db);
    this.q = {
      grant: db.prepare(
        `SELECT g.*, i.action, c.tier FROM grants g
         JOIN intents i ON i.tenant_id = g.tenant_id AND i.id = g.intent_id
         LEFT JOIN capabilities c ON c.tenant_id = g.tenant_id AND c.name = g.capability
         WHERE g.tenant_id = ? AND g.id = ?`,
      ),
      present: db.prepare(
        'UPDATE grants SET presented_by = ?, presented_at = ? WHERE tenant_id = ? AND id = ? AND presented_by IS NULL',
      ),
      effected: db.prepare(
        'UPDATE grants SET effect_recorded_at = ? WHERE tenant_id = ? AND id = ? AND effect_recorded_at IS NULL',
      ),
      intent: db.prepare(INTENT_TO_OBSERVE_SQL),
    };
  }

  private async tx<T>(fn: () => T): Promise<T> {
    try {
      return await writeTransaction(this.db, fn);
    } catch (err) {
      throw storeError(err, 'the record');
    }
  }

  async presentGrant(tenantId: string, grantId: string, caller: Actor): Promise<PresentedGrant> {
    return this.tx(() => {
      const now = this.clock();
      const g = this.ownGrant(tenantId, grantId, caller);
      checkPresentable(g, grantId, now);
      const at = now.toISOString();
      this.q.present.run(caller.id, at, tenantId, grantId);
      return presentedGrant(g, grantId, caller, at);
    });
  }

  async recordGrantEffect(
    tenantId: string,
    grantId: string,
    caller: Actor,
    effect: ReportedEffect,
  ): Promise<SealedReceipt> {
    return this.tx(() => {
      const g = this.ownGrant(tenantId, grantId, caller);
      const on = grantEffectSubject(g, grantId, caller);
      const at = this.clock().toISOString();
      this.q.effected.run(at, tenantId, grantId);
      return this.seal('grant_effect', tenantId, caller, on, effect, at);
    });
  }

  async observe(
    tenantId: string,
    intentId: string,
    caller: Actor,
    effect: ReportedEffect,
  ): Promise<SealedReceipt> {
    return this.tx(() => {
      const i = this.q.intent.get(tenantId, intentId) as IntentToObserveRow | undefined;
      const on = observationSubject(i, intentId, caller);
      return this.seal('observation', tenantId, caller, on, effect, this.clock().toISOString());
    });
  }

  private ownGrant(tenantId: string, grantId: string, caller: Actor): GrantRow {
    return ownGrant(this.q.grant.get(tenantId, grantId) as GrantRow | undefined, grantId, caller);
  }

  private seal(
    kind: 'grant_effect' | 'observation',
    tenantId: string,
    caller: Actor,
    on: EffectSubject,
    effect: ReportedEffect,
    at: string,
  ): SealedReceipt {
    const record = effectRecord({ kind, tenantId, actorId: caller.id, on, effect, at });
    return receiptOf(record, this.journal.append(record, at));
  }
}
