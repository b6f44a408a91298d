import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import { effectRecord, type EffectSubject } from '../../core/records/effect-record.js';
import { receiptOf } from '../../core/records/sealed-receipt.js';
import type { SealedReceipt } from '../decision-ports.js';
import type { EffectStore, PresentedGrant, ReportedEffect } from '../effect-ports.js';
import { storeError, type Db } from './database.js';
import { JournalWriter } from './journal.js';
import { writeTransaction } from './write-lock.js';

interface GrantRow {
  id: string;
  intent_id: string;
  actor_id: string;
  capability: string;
  task_id: string;
  expires_at: string;
  presented_by: string | null;
  presented_at: string | null;
  effect_recorded_at: string | null;
  action: string;
  tier: number | null;
}

interface IntentRow {
  id: string;
  task_id: string;
  actor_id: string;
  capability: string;
  action: string;
  outcome: string;
  custody: string | null;
  tier: number | null;
  observed: number;
}

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
      if (Date.parse(g.expires_at) <= now.getTime()) {
        throw new SvcError('forbidden', `grant ${grantId} expired at ${g.expires_at}`, {
          code: 'grant_expired',
          remedy: 'ask for a new decision',
        });
      }
      if (g.presented_by !== null) {
        throw new SvcError('conflict', `grant ${grantId} was already presented by ${g.presented_by}`, {
          code: 'grant_presented',
        });
      }
      const at = now.toISOString();
      this.q.present.run(caller.id, at, tenantId, grantId);
      return {
        grantId,
        intentId: g.intent_id,
        actorId: g.actor_id,
        capability: g.capability,
        action: g.action,
        taskId: g.task_id,
        expiresAt: g.expires_at,
        presentedBy: caller.id,
        presentedAt: at,
      };
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
      if (g.presented_by !== caller.id) {
        throw new SvcError('forbidden', `grant ${grantId} is not presented by ${caller.id}`, {
          code: 'grant_not_presented',
          remedy: 'POST /v1/grants/present first',
        });
      }
      if (g.effect_recorded_at !== null) {
        throw new SvcError('conflict', `the effect of grant ${grantId} is already journaled`, {
          code: 'effect_recorded',
        });
      }
      const at = this.clock().toISOString();
      this.q.effected.run(at, tenantId, grantId);
      return this.seal(
        'grant_effect',
        tenantId,
        caller,
        {
          intentId: g.intent_id,
          taskId: g.task_id,
          capability: g.capability,
          action: g.action,
          tier: g.tier ?? 0,
          grantId,
        },
        effect,
        at,
      );
    });
  }

  async observe(
    tenantId: string,
    intentId: string,
    caller: Actor,
    effect: ReportedEffect,
  ): Promise<SealedReceipt> {
    return this.tx(() => {
      const i = this.q.intent.get(tenantId, intentId) as IntentRow | undefined;
      if (!i)
        throw new SvcError('not_found', `intent ${intentId} does not exist in this tenant`, {
          code: 'unknown_intent',
        });
      if (i.actor_id !== caller.id)
        throw new SvcError('forbidden', `intent ${intentId} belongs to another actor`, {
          code: 'not_intent_actor',
        });
      if (i.custody !== 'pass_through') {
        throw new SvcError(
          'conflict',
          `capability ${i.capability} is not under pass_through custody; observe reports only those effects`,
          {
            code: 'not_pass_through',
            remedy:
              'grant custody: POST /v1/grants/receipt; brokered custody: the daemon records the outcome itself',
          },
        );
      }
      if (i.outcome !== 'allowed')
        throw new SvcError('conflict', `intent ${intentId} was not allowed (${i.outcome})`, {
          code: 'intent_not_allowed',
        });
      if (Number(i.observed) === 1)
        throw new SvcError('conflict', `the effect of intent ${intentId} is already journaled`, {
          code: 'effect_recorded',
        });
      return this.seal(
        'observation',
        tenantId,
        caller,
        {
          intentId,
          taskId: i.task_id,
          capability: i.capability,
          action: i.action,
          tier: i.tier ?? 0,
          grantId: '',
        },
        effect,
        this.clock().toISOString(),
      );
    });
  }

  /**
   * Grant ids are published in receipts, so knowing one proves nothing: only the actor the grant
   * was minted for may touch it, and anyone else gets the unknown-grant answer, so a guess cannot
   * even learn that the grant exists.
   */
  private ownGrant(tenantId: string, grantId: string, caller: Actor): GrantRow {
    const g = this.q.grant.get(tenantId, grantId) as GrantRow | undefined;
    if (!g || g.actor_id !== caller.id)
      throw new SvcError('not_found', `grant ${grantId} does not exist in this tenant`, {
        code: 'unknown_grant',
      });
    return g;
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
