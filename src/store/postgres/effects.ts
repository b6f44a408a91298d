import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import { effectRecord, type EffectSubject } from '../../core/records/effect-record.js';
import { receiptOf } from '../../core/records/sealed-receipt.js';
import type { SealedReceipt } from '../decision-ports.js';
import type { EffectStore, PresentedGrant, ReportedEffect } from '../effect-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { appendJournal } from './journal.js';
import { lockTenant } from './locks.js';

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
  tier: string | null;
}

interface IntentRow {
  id: string;
  task_id: string;
  actor_id: string;
  capability: string;
  action: string;
  outcome: string;
  custody: string | null;
  tier: string | null;
  observed: boolean;
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
      const g = await ownGrant(tx, tenantId, grantId, caller);
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
      const changed = await tx.query(
        `UPDATE grants SET presented_by = $1, presented_at = $2
         WHERE tenant_id = $3 AND id = $4 AND presented_by IS NULL RETURNING 1`,
        [caller.id, at, tenantId, grantId],
      );
      if (changed.length !== 1) throw new Error('the grant changed under the tenant lock');
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
    return this.tx(tenantId, async (tx) => {
      const g = await ownGrant(tx, tenantId, grantId, caller);
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
      const changed = await tx.query(
        `UPDATE grants SET effect_recorded_at = $1
         WHERE tenant_id = $2 AND id = $3 AND effect_recorded_at IS NULL RETURNING 1`,
        [at, tenantId, grantId],
      );
      if (changed.length !== 1) throw new Error('the grant changed under the tenant lock');
      const on: EffectSubject = {
        intentId: g.intent_id,
        taskId: g.task_id,
        capability: g.capability,
        action: g.action,
        tier: g.tier === null ? 0 : Number(g.tier),
        grantId,
      };
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
      const [i] = await tx.query<IntentRow>(
        `SELECT i.id, i.task_id, i.actor_id, i.capability, i.action, i.outcome, c.custody, c.tier,
           EXISTS (SELECT 1 FROM journal j WHERE j.tenant_id = i.tenant_id AND j.intent_id = i.id
             AND j.kind = 'observation') AS observed
         FROM intents i LEFT JOIN capabilities c ON c.tenant_id = i.tenant_id AND c.name = i.capability
         WHERE i.tenant_id = $1 AND i.id = $2`,
        [tenantId, intentId],
      );
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
      if (i.observed)
        throw new SvcError('conflict', `the effect of intent ${intentId} is already journaled`, {
          code: 'effect_recorded',
        });
      const on: EffectSubject = {
        intentId,
        taskId: i.task_id,
        capability: i.capability,
        action: i.action,
        tier: i.tier === null ? 0 : Number(i.tier),
        grantId: '',
      };
      return seal(tx, 'observation', tenantId, caller, on, effect, this.clock().toISOString());
    });
  }
}

/**
 * Only the actor the grant was minted for may touch it; anyone else gets the unknown-grant
 * answer, so a guessed id cannot even learn that the grant exists.
 */
async function ownGrant(tx: PgTx, tenantId: string, grantId: string, caller: Actor): Promise<GrantRow> {
  const [g] = await tx.query<GrantRow>(
    `SELECT g.*, i.action, c.tier FROM grants g
     JOIN intents i ON i.tenant_id = g.tenant_id AND i.id = g.intent_id
     LEFT JOIN capabilities c ON c.tenant_id = g.tenant_id AND c.name = g.capability
     WHERE g.tenant_id = $1 AND g.id = $2`,
    [tenantId, grantId],
  );
  if (!g || g.actor_id !== caller.id)
    throw new SvcError('not_found', `grant ${grantId} does not exist in this tenant`, {
      code: 'unknown_grant',
    });
  return g;
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
