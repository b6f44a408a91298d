import type { JournalAppend } from '../../evidence/journal-append.js';
import type { ApprovalChannel, ApprovalDecision } from '../approval.js';
import { newId } from '../ids.js';
import type { RecordIds } from './sealed-receipt.js';

/** The approval a human decided, as stored. */
export interface ApprovalSubject {
  id: string;
  intentId: string;
  taskId: string;
  step: string;
  capability: string;
  action: string;
  tier: number;
  requesterId: string;
}

/** The journal record of an approval's decision; `allowed` only when it was approved. */
export function approvalRecord(
  r: {
    tenantId: string;
    approval: ApprovalSubject;
    deciderId: string;
    decision: ApprovalDecision;
    note: string | null;
    channel: ApprovalChannel;
    at: string;
  },
  ids: RecordIds = newId,
): JournalAppend {
  const receiptId = ids('rcp');
  const a = r.approval;
  const allowed = r.decision === 'approve';
  return {
    tenantId: r.tenantId,
    kind: 'approval',
    receiptId,
    taskId: a.taskId,
    intentId: a.intentId,
    actorId: r.deciderId,
    capability: a.capability,
    tier: a.tier,
    allowed,
    grantId: '',
    amountMicros: 0n,
    occurredAt: r.at,
    record: {
      v: 1,
      kind: 'approval',
      receipt_id: receiptId,
      intent_id: a.intentId,
      tenant_id: r.tenantId,
      actor_id: r.deciderId,
      task_id: a.taskId,
      effect_key_step: a.step,
      capability: a.capability,
      action: a.action,
      tier: a.tier,
      approval_id: a.id,
      requester_id: a.requesterId,
      decision: r.decision,
      outcome: allowed ? 'approved' : 'denied',
      allowed,
      note: r.note,
      channel: r.channel,
      occurred_at: r.at,
    },
  };
}
