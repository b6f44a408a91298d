import type { IntentToObserve, StoredGrant } from '../../core/effect.js';
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

export const storedGrant = (g: GrantRow): StoredGrant => ({
  intentId: g.intent_id,
  actorId: g.actor_id,
  capability: g.capability,
  taskId: g.task_id,
  expiresAt: g.expires_at,
  presentedBy: g.presented_by,
  effectRecordedAt: g.effect_recorded_at,
  action: g.action,
  tier: tierOf(g.tier),
});

export const intentToObserve = (i: IntentToObserveRow): IntentToObserve => ({
  taskId: i.task_id,
  actorId: i.actor_id,
  capability: i.capability,
  action: i.action,
  outcome: i.outcome,
  custody: i.custody,
  tier: tierOf(i.tier),
  observed: Number(i.observed) === 1,
});
