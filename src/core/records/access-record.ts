import type { JournalAppend } from '../../evidence/journal-append.js';
import { newId } from '../ids.js';
import type { RecordIds } from './sealed-receipt.js';

/** The steps of an access request's life, each sealed as one journal record of kind `access`. */
export type AccessStep = 'requested' | 'approved' | 'denied' | 'revoked' | 'entitlement_revoked';

const ACTION: Record<AccessStep, string> = {
  requested: 'request',
  approved: 'approve',
  denied: 'deny',
  revoked: 'revoke',
  entitlement_revoked: 'revoke',
};

/** The journal record a step sealed. */
export interface AccessReceipt {
  receiptId: string;
  sequence: number;
}

export interface AccessJournalInput {
  tenantId: string;
  step: AccessStep;
  /** the actor who took the step */
  actorId: string;
  /** the request id, or the entitlement id for an entitlement that came from no request: random either way */
  subjectId: string;
  capability: string;
  tier: number;
  at: string;
  /** the step's own fields (requester, duration, note, entitlement, …) */
  fields: Record<string, unknown>;
}

/**
 * One access record. `allowed` is true only on the step that grants something (an
 * approval); the receipt's `action` and `outcome` name the step. The request's justification
 * is recorded as `access_reason`, so a receipt's `reason` keeps meaning why something was
 * refused.
 */
export function accessRecord(a: AccessJournalInput, ids: RecordIds = newId): JournalAppend {
  const receiptId = ids('rcp');
  return {
    tenantId: a.tenantId,
    kind: 'access',
    receiptId,
    taskId: null,
    intentId: a.subjectId,
    actorId: a.actorId,
    capability: a.capability,
    tier: a.tier,
    allowed: a.step === 'approved',
    grantId: '',
    amountMicros: 0n,
    occurredAt: a.at,
    record: {
      v: 1,
      kind: 'access',
      receipt_id: receiptId,
      intent_id: a.subjectId,
      tenant_id: a.tenantId,
      actor_id: a.actorId,
      capability: a.capability,
      tier: a.tier,
      action: ACTION[a.step],
      outcome: a.step,
      allowed: a.step === 'approved',
      ...a.fields,
      occurred_at: a.at,
    },
  };
}
