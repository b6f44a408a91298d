import { effectiveStatus, type ApprovalFacts, type StoredApprovalStatus } from '../../core/approval.js';
import type { AmountSource } from '../../core/decision/request.js';
import type { ApprovalRecord } from '../query-ports.js';
import { micros, type DbInt } from './numbers.js';

/** An approval row joined with its intent text and its capability's approvers, as both drivers return it. */
export interface ApprovalRow {
  id: string;
  status: StoredApprovalStatus;
  intent_id: string;
  task_id: string;
  step: string;
  capability: string;
  action: string;
  requester_id: string;
  amount_micros: DbInt;
  request_digest: string;
  amount_source: AmountSource | null;
  request: string | null;
  decided_by: string | null;
  decided_at: string | null;
  channel: string | null;
  note: string | null;
  expires_at: string;
  created_at: string;
  /** the intent's description, from the journal record of its latest decision */
  intent: string | null;
  /** the capability's named approvers (JSON array); null when it is no longer registered */
  approvers: string | null;
  tier: DbInt | null;
}

export const approvalFacts = (r: ApprovalRow): ApprovalFacts => ({
  id: r.id,
  status: r.status,
  requesterId: r.requester_id,
  capability: r.capability,
  decidedBy: r.decided_by,
  decidedAt: r.decided_at,
  expiresAt: r.expires_at,
});

export const namedApprovers = (r: ApprovalRow): string[] =>
  r.approvers === null ? [] : (JSON.parse(r.approvers) as string[]);

export function toApprovalRecord(r: ApprovalRow, now: Date): ApprovalRecord {
  return {
    id: r.id,
    status: effectiveStatus(approvalFacts(r), now),
    intentId: r.intent_id,
    taskId: r.task_id,
    step: r.step,
    capability: r.capability,
    action: r.action,
    requesterId: r.requester_id,
    amountMicros: micros(r.amount_micros),
    requestDigest: r.request_digest,
    amountSource: r.amount_source,
    request: r.request,
    // a JSON record may hold a non-string intent; only text is an intent's description
    intent: typeof r.intent === 'string' ? r.intent : null,
    decidedBy: r.decided_by,
    decidedAt: r.decided_at,
    channel: r.channel,
    note: r.note,
    expiresAt: r.expires_at,
    createdAt: r.created_at,
  };
}
