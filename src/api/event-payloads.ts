import { z } from 'zod';
import { EVENT_TYPES, type EventType } from '../core/notify/event.js';

/**
 * The `data` of each outbound event (semantics.md "Events and notifications"), one schema per
 * type, built by core/notify/payloads.ts. Strict: a field added there without its schema here
 * fails the tests that check every emitted event, so nothing leaves unannounced. Fields are
 * never removed or renamed.
 */
const tenant = { tenant_id: z.string() };
const usd = {
  amount_usd: z.number().describe('the amount the request names, in US dollars'),
  currency: z.literal('USD'),
};

const approval = {
  ...tenant,
  approval_id: z.string(),
  intent_id: z.string(),
  task_id: z.string(),
  effect_key_step: z.string(),
  capability: z.string(),
  action: z.string(),
  intent: z.string().nullable().describe("the requester's short description of what it asked to do"),
  requester_id: z.string(),
  ...usd,
  request_digest: z.string().describe('hex SHA-256 of the request body the approval binds'),
  expires_at: z.string(),
  created_at: z.string(),
};

export const EVENT_PAYLOADS = {
  'approval.requested': z.strictObject(approval),
  'approval.decided': z.strictObject({
    ...approval,
    status: z.enum(['approved', 'denied']),
    decided_by: z.string(),
    decided_at: z.string(),
    channel: z.string().describe('where the decision came from: api, cli, console, chat, collab'),
    receipt_id: z.string(),
  }),
  'approval.expired': z.strictObject({ ...approval, status: z.literal('expired') }),
  'approval.reminder': z.strictObject({
    ...approval,
    status: z.literal('pending'),
    pending_seconds: z.number().int().describe('how long the approval has waited when the reminder was sent'),
    escalated: z.boolean().describe('true when sent to the escalation destination of the one that reminds'),
  }),
  'access_request.created': z.strictObject({
    ...tenant,
    access_request_id: z.string(),
    requester_id: z.string(),
    capability: z.string(),
    duration_seconds: z.number().int(),
    deciders: z
      .array(z.string())
      .describe('who is asked: the requester’s manager and the capability’s owners'),
    created_at: z.string(),
    receipt_id: z.string(),
  }),
  'manager_card.decided': z.strictObject({
    ...tenant,
    card_id: z.string(),
    access_request_id: z.string(),
    requester_id: z.string(),
    capability: z.string(),
    status: z.enum(['approved', 'denied']),
    decided_by: z.string(),
    decided_at: z.string(),
    granted_seconds: z.number().int().nullable(),
    entitlement_id: z.string().nullable(),
    entitlement_expires_at: z.string().nullable(),
    receipt_id: z.string(),
  }),
  'entitlement.revoked': z.strictObject({
    ...tenant,
    entitlement_id: z.string(),
    holder_id: z.string(),
    capability: z.string(),
    access_request_id: z.string().nullable(),
    expires_at: z.string(),
    revoked_by: z.string(),
    revoked_at: z.string(),
    receipt_id: z.string(),
  }),
  'budget.threshold': z.strictObject({
    ...tenant,
    task_id: z.string(),
    threshold_percent: z.union([z.literal(80), z.literal(100)]),
    budget_usd: z.number(),
    reserved_usd: z.number().describe("the task's reservations once the crossing decision reserved"),
    currency: z.literal('USD'),
    intent_id: z.string().describe('the decision whose reservation crossed the threshold'),
    crossed_at: z.string(),
  }),
  'decision.refused': z.strictObject({
    ...tenant,
    receipt_id: z.string(),
    intent_id: z.string(),
    task_id: z.string(),
    effect_key_step: z.string(),
    actor_id: z.string(),
    capability: z.string(),
    action: z.string(),
    code: z.string().nullable(),
    reason: z.string().nullable(),
    ...usd,
    request_digest: z.string(),
    decided_at: z.string(),
  }),
  'attestation.failed': z
    .strictObject({
      ...tenant,
      tree_size: z.number().int().describe('the anchor’s tree size: which signed head went without it'),
      attestation: z.enum(['timestamp', 'witness']),
      witness_id: z.string().nullable().describe('the witness’s pinned id; null for the timestamp authority'),
      reason: z
        .enum(['unreachable', 'refused'])
        .describe('no answer or an error, or an answer not from the pinned witness'),
    })
    .describe('emitted by the daemon when a witness or the timestamp authority does not answer an anchor'),
  'integration.surface_revoked': z.strictObject({
    ...tenant,
    surface_id: z.string(),
    revoked_by: z.string(),
    revoked_at: z.string(),
    receipt_id: z.string(),
  }),
} satisfies Record<EventType, z.ZodType>;

/** The envelope a receiver gets: `{type, timestamp, data}`. */
export const EventEnvelope = z.object({
  type: z.enum(EVENT_TYPES),
  timestamp: z.string(),
  data: z.looseObject({ tenant_id: z.string() }),
});
