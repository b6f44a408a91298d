import { formatUsd, type Micros } from '../money.js';

/**
 * The `data` of each event, built from what a reader of the record it names already reads
 * (api/event-payloads.ts holds the schemas). Never a token, a secret, a credential
 * reference, the params of a request, a note or any field of the private journal record:
 * an event goes outside the deployment.
 */

/** An approval as its events describe it. */
export interface ApprovalEventFacts {
  id: string;
  intentId: string;
  taskId: string;
  step: string;
  capability: string;
  action: string;
  requesterId: string;
  amountMicros: Micros;
  requestDigest: string;
  intent: string | null;
  expiresAt: string;
  createdAt: string;
}

export function approvalData(a: ApprovalEventFacts): Record<string, unknown> {
  return {
    approval_id: a.id,
    intent_id: a.intentId,
    task_id: a.taskId,
    effect_key_step: a.step,
    capability: a.capability,
    action: a.action,
    intent: a.intent,
    requester_id: a.requesterId,
    amount_usd: formatUsd(a.amountMicros),
    currency: 'USD',
    request_digest: a.requestDigest,
    expires_at: a.expiresAt,
    created_at: a.createdAt,
  };
}

export function approvalDecidedData(
  a: ApprovalEventFacts,
  d: {
    status: 'approved' | 'denied';
    decidedBy: string;
    decidedAt: string;
    channel: string;
    receiptId: string;
  },
): Record<string, unknown> {
  return {
    ...approvalData(a),
    status: d.status,
    decided_by: d.decidedBy,
    decided_at: d.decidedAt,
    channel: d.channel,
    receipt_id: d.receiptId,
  };
}

/** A reminder of an approval still pending (issue 26: reminders and escalation). */
export function approvalReminderData(
  a: ApprovalEventFacts,
  r: { pendingSeconds: number; escalated: boolean },
): Record<string, unknown> {
  return { ...approvalData(a), status: 'pending', pending_seconds: r.pendingSeconds, escalated: r.escalated };
}

export function accessRequestData(r: {
  id: string;
  requesterId: string;
  capability: string;
  durationSeconds: number;
  deciders: string[];
  createdAt: string;
  receiptId: string;
}): Record<string, unknown> {
  return {
    access_request_id: r.id,
    requester_id: r.requesterId,
    capability: r.capability,
    duration_seconds: r.durationSeconds,
    deciders: r.deciders,
    created_at: r.createdAt,
    receipt_id: r.receiptId,
  };
}

export function cardDecidedData(c: {
  cardId: string;
  accessRequestId: string;
  requesterId: string;
  capability: string;
  status: 'approved' | 'denied';
  decidedBy: string;
  decidedAt: string;
  grantedSeconds: number | null;
  entitlementId: string | null;
  entitlementExpiresAt: string | null;
  receiptId: string;
}): Record<string, unknown> {
  return {
    card_id: c.cardId,
    access_request_id: c.accessRequestId,
    requester_id: c.requesterId,
    capability: c.capability,
    status: c.status,
    decided_by: c.decidedBy,
    decided_at: c.decidedAt,
    granted_seconds: c.grantedSeconds,
    entitlement_id: c.entitlementId,
    entitlement_expires_at: c.entitlementExpiresAt,
    receipt_id: c.receiptId,
  };
}

export function entitlementRevokedData(e: {
  id: string;
  holderId: string;
  capability: string;
  accessRequestId: string | null;
  expiresAt: string;
  revokedBy: string;
  revokedAt: string;
  receiptId: string;
}): Record<string, unknown> {
  return {
    entitlement_id: e.id,
    holder_id: e.holderId,
    capability: e.capability,
    access_request_id: e.accessRequestId,
    expires_at: e.expiresAt,
    revoked_by: e.revokedBy,
    revoked_at: e.revokedAt,
    receipt_id: e.receiptId,
  };
}

export function surfaceRevokedData(s: {
  surfaceId: string;
  revokedBy: string;
  revokedAt: string;
  receiptId: string;
}): Record<string, unknown> {
  return {
    surface_id: s.surfaceId,
    revoked_by: s.revokedBy,
    revoked_at: s.revokedAt,
    receipt_id: s.receiptId,
  };
}

export function refusedData(r: {
  receiptId: string;
  intentId: string;
  taskId: string;
  step: string;
  actorId: string;
  capability: string;
  action: string;
  code: string | null;
  reason: string | null;
  amountMicros: Micros;
  requestDigest: string;
  at: string;
}): Record<string, unknown> {
  return {
    receipt_id: r.receiptId,
    intent_id: r.intentId,
    task_id: r.taskId,
    effect_key_step: r.step,
    actor_id: r.actorId,
    capability: r.capability,
    action: r.action,
    code: r.code,
    reason: r.reason,
    amount_usd: formatUsd(r.amountMicros),
    currency: 'USD',
    request_digest: r.requestDigest,
    decided_at: r.at,
  };
}

export function budgetThresholdData(b: {
  taskId: string;
  percent: 80 | 100;
  budgetMicros: Micros;
  reservedMicros: Micros;
  intentId: string;
  at: string;
}): Record<string, unknown> {
  return {
    task_id: b.taskId,
    threshold_percent: b.percent,
    budget_usd: formatUsd(b.budgetMicros),
    reserved_usd: formatUsd(b.reservedMicros),
    currency: 'USD',
    intent_id: b.intentId,
    crossed_at: b.at,
  };
}
