import type { Appended, JournalAppend } from '../evidence/journal-append.js';
import type { Actor } from './actor.js';
import type { SealedReceipt } from './decision/sealed.js';
import { SvcError } from './errors.js';
import { checkGuarded } from './guarded-write.js';
import { effectRecord, type EffectSubject, type ReportedEffect } from './records/effect-record.js';
import { receiptOf } from './records/sealed-receipt.js';
import { asker, type UseCase } from './use-case.js';

/** A stored grant, with its intent's action and its capability's tier (0 when unregistered). */
export interface StoredGrant {
  intentId: string;
  actorId: string;
  capability: string;
  taskId: string;
  expiresAt: string;
  presentedBy: string | null;
  effectRecordedAt: string | null;
  action: string;
  tier: number;
}

/** An intent an observation reports on, with its capability's custody and tier, and whether it was observed. */
export interface IntentToObserve {
  taskId: string;
  actorId: string;
  capability: string;
  action: string;
  outcome: string;
  custody: string | null;
  tier: number;
  observed: boolean;
}

export interface PresentedGrant {
  grantId: string;
  intentId: string;
  actorId: string;
  capability: string;
  action: string;
  taskId: string;
  expiresAt: string;
  presentedBy: string;
  presentedAt: string;
}

/**
 * The store operations of grants and observed effects, inside one transaction that holds the
 * tenant's writer (SQLite's single writer, PostgreSQL's tenant lock).
 */
export interface EffectOps {
  grant(tenantId: string, grantId: string): StoredGrant | undefined;
  intentToObserve(tenantId: string, intentId: string): IntentToObserve | undefined;
  /** bind the grant to its presenter where no one presented it yet: the rows changed */
  markPresented(tenantId: string, grantId: string, presentedBy: string, at: string): number;
  /** mark the grant's effect journaled where `presentedBy` presented it and none was yet: the rows changed */
  markEffectRecorded(tenantId: string, grantId: string, presentedBy: string, at: string): number;
  append(record: JournalAppend, at: string): Appended;
}

const ask = asker<EffectOps>();

/** Bind a stored grant, once, to the caller presenting it. */
export function* presentGrant(
  tenantId: string,
  grantId: string,
  caller: Actor,
  clock: () => Date,
): UseCase<EffectOps, PresentedGrant> {
  const now = clock();
  const g = ownGrant(yield* ask('grant', tenantId, grantId), caller);
  checkPresentable(g, grantId, now);
  const at = now.toISOString();
  checkGuarded(
    `the presentation of grant ${grantId}`,
    yield* ask('markPresented', tenantId, grantId, caller.id, at),
  );
  return {
    grantId,
    intentId: g.intentId,
    actorId: g.actorId,
    capability: g.capability,
    action: g.action,
    taskId: g.taskId,
    expiresAt: g.expiresAt,
    presentedBy: caller.id,
    presentedAt: at,
  };
}

/** Journal the observed effect of a grant the caller presented; once per grant. */
export function* recordGrantEffect(
  tenantId: string,
  grantId: string,
  caller: Actor,
  effect: ReportedEffect,
  clock: () => Date,
): UseCase<EffectOps, SealedReceipt> {
  const g = ownGrant(yield* ask('grant', tenantId, grantId), caller);
  const on = grantEffectSubject(g, grantId, caller);
  const at = clock().toISOString();
  checkGuarded(
    `the effect record of grant ${grantId}`,
    yield* ask('markEffectRecorded', tenantId, grantId, caller.id, at),
  );
  return yield* seal('grant_effect', tenantId, caller, on, effect, at);
}

/** Journal the effect of a pass_through intent, reported by the actor that was allowed; once per intent. */
export function* observe(
  tenantId: string,
  intentId: string,
  caller: Actor,
  effect: ReportedEffect,
  clock: () => Date,
): UseCase<EffectOps, SealedReceipt> {
  const on = observationSubject(yield* ask('intentToObserve', tenantId, intentId), intentId, caller);
  return yield* seal('observation', tenantId, caller, on, effect, clock().toISOString());
}

function* seal(
  kind: 'grant_effect' | 'observation',
  tenantId: string,
  caller: Actor,
  on: EffectSubject,
  effect: ReportedEffect,
  at: string,
): UseCase<EffectOps, SealedReceipt> {
  const record = effectRecord({ kind, tenantId, actorId: caller.id, on, effect, at });
  return receiptOf(record, yield* ask('append', record, at));
}

/**
 * Grant ids are published in receipts, so knowing one proves nothing: only the actor the grant
 * was minted for may touch it, and anyone else gets the unknown-grant answer, so a guess cannot
 * even learn that the grant exists.
 */
function ownGrant(g: StoredGrant | undefined, caller: Actor): StoredGrant {
  if (!g || g.actorId !== caller.id)
    throw new SvcError('not_found', 'no such grant in this tenant', {
      code: 'unknown_grant',
    });
  return g;
}

/** Refuses presenting a grant that expired or was presented already. */
function checkPresentable(g: StoredGrant, grantId: string, now: Date): void {
  if (Date.parse(g.expiresAt) <= now.getTime()) {
    throw new SvcError('forbidden', `grant ${grantId} expired at ${g.expiresAt}`, {
      code: 'grant_expired',
      remedy: 'ask for a new decision',
    });
  }
  if (g.presentedBy !== null) {
    throw new SvcError('conflict', `grant ${grantId} was already presented by ${g.presentedBy}`, {
      code: 'grant_presented',
    });
  }
}

/** The grant's effect may be journaled once, by the actor that presented it; what it is about. */
function grantEffectSubject(g: StoredGrant, grantId: string, caller: Actor): EffectSubject {
  if (g.presentedBy !== caller.id) {
    throw new SvcError('forbidden', `grant ${grantId} is not presented by ${caller.id}`, {
      code: 'grant_not_presented',
      remedy: 'POST /v1/grants/present first',
    });
  }
  if (g.effectRecordedAt !== null) {
    throw new SvcError('conflict', `the effect of grant ${grantId} is already journaled`, {
      code: 'effect_recorded',
    });
  }
  return {
    intentId: g.intentId,
    taskId: g.taskId,
    capability: g.capability,
    action: g.action,
    tier: g.tier,
    grantId,
  };
}

/**
 * An observation reports the effect of the caller's own allowed pass-through intent, once;
 * what it is about.
 */
function observationSubject(i: IntentToObserve | undefined, intentId: string, caller: Actor): EffectSubject {
  if (!i)
    throw new SvcError('not_found', 'no such intent in this tenant', {
      code: 'unknown_intent',
    });
  if (i.actorId !== caller.id)
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
  if (i.observed)
    throw new SvcError('conflict', `the effect of intent ${intentId} is already journaled`, {
      code: 'effect_recorded',
    });
  return {
    intentId,
    taskId: i.taskId,
    capability: i.capability,
    action: i.action,
    tier: i.tier,
    grantId: '',
  };
}
