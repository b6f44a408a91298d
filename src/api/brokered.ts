import { z } from 'zod';
import { SLUG } from '../core/ids.js';
import { DecisionResponse } from './decision.js';

const ReceiptRef = z.object({
  receipt_id: z.string(),
  sequence: z.number().int(),
  record_hash: z.string(),
  occurred_at: z.string(),
});

/** What the provider did, as the daemon saw it; never the credential. */
export const ProviderOutcomeView = z
  .object({
    execution_id: z.string().describe('the durable intent to execute, committed with the decision'),
    outcome: z
      .enum(['succeeded', 'failed', 'unknown'])
      .describe(
        'succeeded: 2xx, body read whole; failed: 4xx, or certainly not sent; unknown: anything else',
      ),
    sent: z.boolean().describe('false only when the request certainly never left the daemon'),
    status: z.number().int().nullable().describe("the provider's HTTP status, when it answered"),
    effect_id: z
      .string()
      .nullable()
      .describe("taken from the provider's response by the operation's JSON pointer"),
    digest: z.string().nullable().describe('hex SHA-256 of the response body, when it was read whole'),
    error: z.string().nullable().describe('not_sent, timeout, reset, response_too_large, transport'),
    reason: z.string(),
    body: z
      .unknown()
      .optional()
      .describe("the provider's JSON body, for operations declared with return_body"),
    receipt: ReceiptRef.optional().describe('the journal record of this outcome (kind execution)'),
  })
  .meta({ id: 'ProviderOutcome' });

export const BrokeredResponse = DecisionResponse.extend({
  provider: ProviderOutcomeView.nullable().describe(
    'null unless the decision allowed and the daemon executed',
  ),
}).meta({ id: 'BrokeredDecision' });

export const OutcomeNotRecorded = z
  .object({
    code: z.literal('outcome_not_recorded'),
    reason: z.string(),
    remedy: z.string(),
    intent_id: z.string().describe('the intent to reconcile'),
    execution_id: z.string(),
    executed: z.boolean().describe('whether the request reached (or may have reached) the provider'),
    provider: ProviderOutcomeView.optional(),
    request_id: z.string(),
  })
  .meta({ id: 'OutcomeNotRecorded' });

export const SurfacesResponse = z.object({
  surfaces: z.array(
    z.object({
      surface_id: z.string(),
      adapter: z.string(),
      status: z.enum(['active', 'revoked']),
      operations: z.array(z.string()),
      rotated_at: z.string().nullable(),
      revoked_at: z.string().nullable(),
    }),
  ),
  note: z.string(),
});

const credentialRef = z
  .string()
  .min(1)
  .max(1100)
  .describe(
    'env:NAME, file:/path or secret:name; an API caller may name secrets and the references the document lists',
  );

export const ConnectionCheckBody = z.strictObject({
  surface_id: z.string().regex(SLUG),
  credential_ref: credentialRef.optional().describe('default: the reference the surface uses now'),
});

export const ConnectionCheckResponse = z.object({
  surface_id: z.string(),
  adapter: z.string(),
  credential_ref: z.string().nullable().describe('as given; null when the current reference was checked'),
  answer: z.enum([
    'reachable',
    'credential_resolved',
    'credential_unavailable',
    'credential_rejected',
    'unexpected_status',
    'unreachable',
  ]),
  reason: z.string(),
  status: z.number().int().nullable(),
  live_vendor_verification: z.literal(false),
  note: z.string(),
  receipt: ReceiptRef,
});

export const RotateBody = z.strictObject({
  surface_id: z.string().regex(SLUG),
  credential_ref: credentialRef,
});
export const RevokeBody = z.strictObject({ surface_id: z.string().regex(SLUG) });

export const SurfaceChangeResponse = z.object({
  surface_id: z.string(),
  status: z.enum(['active', 'revoked']),
  rotated_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  note: z.string(),
  receipt: ReceiptRef,
});
