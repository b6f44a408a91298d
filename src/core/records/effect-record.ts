import type { JournalAppend } from '../../evidence/journal-append.js';
import { newId } from '../ids.js';
import type { RecordIds } from './sealed-receipt.js';

/** An effect as the agent or application reports it. */
export interface ReportedEffect {
  status: 'succeeded' | 'failed' | 'unknown';
  effectId: string | null;
  detail: Record<string, unknown> | null;
}

/** What the reported effect is about: the intent (and, under grant custody, the grant). */
export interface EffectSubject {
  intentId: string;
  taskId: string;
  capability: string;
  action: string;
  tier: number;
  /** '' for an observation (pass_through custody) */
  grantId: string;
}

/**
 * The journal record of a reported effect: `grant_effect` for a presented grant,
 * `observation` for a pass_through intent. Reported, so labelled observed, never enforced.
 */
export function effectRecord(
  r: {
    kind: 'grant_effect' | 'observation';
    tenantId: string;
    actorId: string;
    on: EffectSubject;
    effect: ReportedEffect;
    at: string;
  },
  ids: RecordIds = newId,
): JournalAppend {
  const receiptId = ids('rcp');
  return {
    tenantId: r.tenantId,
    kind: r.kind,
    receiptId,
    taskId: r.on.taskId,
    intentId: r.on.intentId,
    actorId: r.actorId,
    capability: r.on.capability,
    tier: r.on.tier,
    allowed: true,
    grantId: r.on.grantId,
    amountMicros: 0n,
    occurredAt: r.at,
    record: {
      v: 1,
      kind: r.kind,
      receipt_id: receiptId,
      intent_id: r.on.intentId,
      tenant_id: r.tenantId,
      actor_id: r.actorId,
      task_id: r.on.taskId,
      capability: r.on.capability,
      action: r.on.action,
      grant_id: r.on.grantId || null,
      outcome: r.effect.status,
      effect: r.effect.detail,
      effect_id: r.effect.effectId,
      // reported by the agent or application: observed, never enforced
      observed: true,
      occurred_at: r.at,
    },
  };
}
