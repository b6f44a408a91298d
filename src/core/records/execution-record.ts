import type { JournalAppend } from '../../evidence/journal-append.js';
import { newId } from '../ids.js';
import type { RecordIds } from './sealed-receipt.js';

/** What the broker saw of a provider call. */
export interface ExecutionOutcome {
  outcome: 'succeeded' | 'failed' | 'unknown';
  sent: boolean;
  status: number | null;
  effectId: string | null;
  digest: string | null;
  bytes: number;
  error: string | null;
  reason: string;
}

/** The pending execution the outcome finishes, as stored. */
export interface ExecutionSubject {
  tenantId: string;
  id: string;
  intentId: string;
  taskId: string;
  step: string;
  actorId: string;
  capability: string;
  action: string;
  tier: number;
  surfaceId: string;
  operation: string;
  credentialRef: string;
}

/**
 * The journal record of a brokered execution's outcome: seen by the daemon itself, so not
 * observed. `extra` adds fields such as `recovered` (start-up recovery) or `sent_digest`.
 */
export function executionRecord(
  e: ExecutionSubject,
  o: ExecutionOutcome,
  extra: Record<string, unknown>,
  at: string,
  ids: RecordIds = newId,
): JournalAppend {
  const receiptId = ids('rcp');
  return {
    tenantId: e.tenantId,
    kind: 'execution',
    receiptId,
    taskId: e.taskId,
    intentId: e.intentId,
    actorId: e.actorId,
    capability: e.capability,
    tier: e.tier,
    allowed: true,
    grantId: '',
    amountMicros: 0n,
    occurredAt: at,
    record: {
      v: 1,
      kind: 'execution',
      receipt_id: receiptId,
      intent_id: e.intentId,
      execution_id: e.id,
      tenant_id: e.tenantId,
      actor_id: e.actorId,
      task_id: e.taskId,
      effect_key_step: e.step,
      capability: e.capability,
      action: e.action,
      surface_id: e.surfaceId,
      operation: e.operation,
      // the reference, never the value: which credential acted, for the audit
      credential_ref: e.credentialRef,
      outcome: o.outcome,
      reason: o.reason,
      effect: { status: o.status, digest: o.digest, bytes: o.bytes, sent: o.sent, error: o.error },
      effect_id: o.effectId,
      // executed and seen by the daemon itself, not reported by the agent
      observed: false,
      ...extra,
      occurred_at: at,
    },
  };
}
