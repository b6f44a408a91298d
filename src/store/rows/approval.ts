import type { Actor } from '../../core/actor.js';
import {
  effectiveStatus,
  readsApproval,
  type ApprovalFacts,
  type StoredApprovalStatus,
} from '../../core/approval.js';
import type { ApprovalDecisionWrite, ApprovalToDecide } from '../../core/approval-decision.js';
import type { AmountSource } from '../../core/decision/request.js';
import type { ApprovalRecord } from '../query-ports.js';
import type { ExpiredApproval } from '../../core/notify/approval-expiry.js';
import type { DueReminder } from '../../core/notify/approval-reminder.js';
import { micros, type DbInt } from './numbers.js';

/** An approval row joined with its intent text and its capability's approvers, as both drivers return it. */
export interface ApprovalRow {
  tenant_id: string;
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

/** The approval as core/approval-decision.ts judges it, with its capability as registered now. */
/** An approval as `approval.expired` describes it. */
export const toExpiredApproval = (r: ApprovalRow): ExpiredApproval => ({
  tenantId: r.tenant_id,
  id: r.id,
  intentId: r.intent_id,
  taskId: r.task_id,
  step: r.step,
  capability: r.capability,
  action: r.action,
  requesterId: r.requester_id,
  amountMicros: micros(r.amount_micros),
  requestDigest: r.request_digest,
  intent: typeof r.intent === 'string' ? r.intent : null,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
});

/** An approval row of the reminder sweep, with the destination that reminds of it. */
export interface ReminderRow extends ApprovalRow {
  reminder_destination: string;
  reminder_escalate_to: string | null;
}

export const toDueReminder = (r: ReminderRow): DueReminder => ({
  ...toExpiredApproval(r),
  destinationId: r.reminder_destination,
  escalateTo: r.reminder_escalate_to,
});

export const approvalToDecide = (r: ApprovalRow): ApprovalToDecide => ({
  ...approvalFacts(r),
  intentId: r.intent_id,
  taskId: r.task_id,
  step: r.step,
  action: r.action,
  namedApprovers: namedApprovers(r),
  tier: r.tier === null ? null : Number(r.tier),
  amountMicros: micros(r.amount_micros),
  requestDigest: r.request_digest,
  intent: typeof r.intent === 'string' ? r.intent : null,
  createdAt: r.created_at,
});

/**
 * The decision's values in the parameter order of both adapters' guarded UPDATE: SET status,
 * decided_by, decided_at, channel, note; WHERE tenant_id, id, status, and expires_at after
 * the decision's time.
 */
export function approvalDecisionValues(w: ApprovalDecisionWrite): unknown[] {
  return [
    w.status,
    w.decidedBy,
    w.decidedAt,
    w.channel,
    w.note,
    w.tenantId,
    w.approvalId,
    w.expect.status,
    w.decidedAt,
  ];
}

/**
 * The approval as `viewer` may read it, or undefined: one rule (core/approval.ts
 * `readsApproval`) for both stores' `get`. Their `list` filters in SQL by the same rule.
 */
export function readableApproval(
  viewer: Actor,
  r: ApprovalRow | undefined,
  now: Date,
): ApprovalRecord | undefined {
  return r && readsApproval(viewer, approvalFacts(r), namedApprovers(r))
    ? toApprovalRecord(r, now)
    : undefined;
}

/** The status through `effectiveStatus` only: `expired` is never stored. */
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
