import { z } from 'zod';
import { CAPABILITY_NAME, VERB } from '../core/capability.js';
import { CONFLICT_CODES, REFUSAL_CODES } from '../core/decision/outcome.js';
import { actionRequestDigest, type DecisionRequest, type Route } from '../core/decision/request.js';
import { SLUG } from '../core/ids.js';
import { parseUsd } from '../core/money.js';

/** An effect key's step: the caller's own idempotency element. */
export const ACTION_STEP = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** ActionRequest and BrokeredRequest (semantics.md, Decision requests); unknown fields are refused. */
export const ActionRequestBody = z
  .strictObject({
    tenant_id: z.string().regex(SLUG).describe('claim: must equal the authenticated tenant'),
    actor_id: z.string().regex(SLUG).describe('claim: must equal the authenticated actor'),
    capability: z.string().regex(CAPABILITY_NAME),
    action: z.string().regex(VERB).describe('the verb, e.g. read'),
    task_id: z.string().regex(SLUG),
    effect_key_step: z
      .string()
      .regex(ACTION_STEP)
      .describe('the idempotency element: a new action takes a new step; a retry or resume keeps it'),
    amount_usd: z
      .number()
      .optional()
      .describe(
        "the requester's estimate in USD, at most 6 decimal places, 0 to 1e12; default: the capability estimate. When the operation derives its amount from a param (brokered route), the derived amount applies and a different amount_usd is refused",
      ),
    intent: z.string().max(500).optional().describe('a short human description, published in receipts'),
    params: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("the operation's arguments (brokered route)"),
    correlation_id: z
      .string()
      .max(200)
      .optional()
      .describe("the caller's own identifier: journaled, never published"),
    trace_id: z
      .string()
      .max(200)
      .optional()
      .describe("the caller's own identifier: journaled, never published"),
  })
  .meta({ id: 'ActionRequest' });
export type ActionRequestBody = z.output<typeof ActionRequestBody>;

export function toDecisionRequest(route: Route, body: ActionRequestBody): DecisionRequest {
  return {
    route,
    tenantId: body.tenant_id,
    actorId: body.actor_id,
    capability: body.capability,
    action: body.action,
    taskId: body.task_id,
    step: body.effect_key_step,
    amountMicros: body.amount_usd === undefined ? null : parseUsd(body.amount_usd, 'amount_usd'),
    amountSource: body.amount_usd === undefined ? 'capability_default' : 'requester_estimate',
    intent: body.intent ?? null,
    params: body.params ?? null,
    correlationId: body.correlation_id ?? null,
    traceId: body.trace_id ?? null,
    digest: actionRequestDigest(body),
    body,
  };
}

const SealedReceiptView = z.object({
  receipt_id: z.string(),
  sequence: z.number().int(),
  record_hash: z.string(),
  occurred_at: z.string(),
  intent_id: z.string(),
  task_id: z.string(),
  capability: z.string(),
  action: z.string(),
  outcome: z.string(),
  code: z.string().nullable(),
  amount_usd: z.number(),
});

/** Decision-shaped answer for 200, 202 and the sealed 403. */
export const DecisionResponse = z
  .object({
    decision: z.enum(['allowed', 'refused', 'deferred']),
    intent_id: z.string(),
    code: z.enum(REFUSAL_CODES).optional().describe('refusals: the stable refusal code'),
    reason: z.string().optional(),
    remedy: z.string().optional().describe('the smallest satisfying change, when it can be named'),
    amount_usd: z.number().describe('reserved by this decision (0 unless allowed)'),
    grant: z
      .object({
        grant_id: z.string(),
        expires_at: z.string(),
        capability: z.string(),
        action: z.string(),
        intent_id: z.string(),
        task_id: z.string(),
      })
      .nullable()
      .describe('authorization material, not proof of execution'),
    approval: z
      .object({ approval_id: z.string(), status: z.string(), expires_at: z.string().optional() })
      .nullable(),
    receipt: SealedReceiptView.describe('the sealed journal receipt of this decision'),
  })
  .meta({ id: 'Decision' });

export const NoDeferralResponse = z
  .object({
    code: z.literal('no_deferral'),
    reason: z.string(),
    remedy: z.string(),
    intent_id: z
      .string()
      .optional()
      .describe(
        "the intent that holds the effect key, when it is the caller's own (for example already allowed)",
      ),
    outcome: z.string().optional().describe("that intent's outcome"),
  })
  .meta({ id: 'NoDeferral' });

export const ConflictResponse = z
  .object({
    code: z.enum(CONFLICT_CODES),
    reason: z.string(),
    remedy: z.string(),
    intent_id: z.string().describe('the original intent'),
    outcome: z.string().describe("the original intent's outcome; a claim is not proof of downstream success"),
  })
  .meta({ id: 'Conflict' });
