import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import type { EffectSubject } from '../../core/records/effect-record.js';
import type { PresentedGrant } from '../effect-ports.js';
import type { DbInt } from './numbers.js';

/** A grant joined with its intent's action and its capability's tier, as both drivers return it. */
export interface GrantRow {
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
  tier: DbInt | null;
}

/** An intent an observation reports on; `observed` is 0/1 from SQLite, a boolean from PostgreSQL. */
export interface IntentToObserveRow {
  id: string;
  task_id: string;
  actor_id: string;
  capability: string;
  action: string;
  outcome: string;
  custody: string | null;
  tier: DbInt | null;
  observed: number | boolean;
}

const tierOf = (tier: DbInt | null): number => (tier === null ? 0 : Number(tier));

/**
 * Grant ids are published in receipts, so knowing one proves nothing: only the actor the grant
 * was minted for may touch it, and anyone else gets the unknown-grant answer, so a guess cannot
 * even learn that the grant exists.
 */
export function ownGrant(g: GrantRow | undefined, grantId: string, caller: Actor): GrantRow {
  if (!g || g.actor_id !== caller.id)
    throw new SvcError('not_found', 'no such grant in this tenant', {
      code: 'unknown_grant',
    });
  return g;
}

/** Refuses presenting a grant that expired or was presented already. */
export function checkPresentable(g: GrantRow, grantId: string, now: Date): void {
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
}

export const presentedGrant = (g: GrantRow, grantId: string, caller: Actor, at: string): PresentedGrant => ({
  grantId,
  intentId: g.intent_id,
  actorId: g.actor_id,
  capability: g.capability,
  action: g.action,
  taskId: g.task_id,
  expiresAt: g.expires_at,
  presentedBy: caller.id,
  presentedAt: at,
});

/** The grant's effect may be journaled once, by the actor that presented it; what it is about. */
export function grantEffectSubject(g: GrantRow, grantId: string, caller: Actor): EffectSubject {
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
  return {
    intentId: g.intent_id,
    taskId: g.task_id,
    capability: g.capability,
    action: g.action,
    tier: tierOf(g.tier),
    grantId,
  };
}

/**
 * An observation reports the effect of the caller's own allowed pass-through intent, once;
 * what it is about.
 */
export function observationSubject(
  i: IntentToObserveRow | undefined,
  intentId: string,
  caller: Actor,
): EffectSubject {
  if (!i)
    throw new SvcError('not_found', 'no such intent in this tenant', {
      code: 'unknown_intent',
    });
  if (i.actor_id !== caller.id)
    throw new SvcError('forbidden', 'the intent belongs to another actor', {
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
  return {
    intentId,
    taskId: i.task_id,
    capability: i.capability,
    action: i.action,
    tier: tierOf(i.tier),
    grantId: '',
  };
}
