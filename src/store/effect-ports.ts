import type { Actor } from '../core/actor.js';
import type { PresentedGrant } from '../core/effect.js';
import type { ReportedEffect } from '../core/records/effect-record.js';
import type { SealedReceipt } from './decision-ports.js';

/** An effect as the reporter saw it: observed, never enforced. */
export type { ReportedEffect } from '../core/records/effect-record.js';

/** Grants and observed effects are use cases of core (core/effect.ts). */
export type { PresentedGrant } from '../core/effect.js';

export interface EffectStore {
  /** Bind a stored grant, once, to the caller presenting it. */
  presentGrant(tenantId: string, grantId: string, caller: Actor): Promise<PresentedGrant>;
  /** Journal the observed effect of a grant the caller presented; once per grant. */
  recordGrantEffect(
    tenantId: string,
    grantId: string,
    caller: Actor,
    effect: ReportedEffect,
  ): Promise<SealedReceipt>;
  /** Journal the effect of a pass_through intent, reported by the actor that was allowed; once per intent. */
  observe(tenantId: string, intentId: string, caller: Actor, effect: ReportedEffect): Promise<SealedReceipt>;
}
