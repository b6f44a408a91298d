import { z } from 'zod';

/**
 * The published projection of a journal record: intent, effect and effect-id fields; never
 * the caller's correlation identifiers.
 */
export const ReceiptView = z
  .object({
    receipt_id: z.string(),
    sequence: z.number().int().describe('position in the tenant journal'),
    kind: z.enum([
      'decision',
      'observation',
      'grant_effect',
      'approval',
      'execution',
      'redaction',
      'integration_op',
      'access',
    ]),
    intent_id: z.string(),
    task_id: z.string().nullable(),
    actor_id: z.string(),
    capability: z.string(),
    action: z.string().nullable(),
    intent: z.string().nullable().describe("the caller's short description of the intent"),
    effect_key_step: z
      .string()
      .nullable()
      .describe(
        "the effect key's step (decisions and executions): with task_id, how a client reconciles an unknown outcome",
      ),
    outcome: z.string().describe('allowed, refused, deferred; for effects: the reported status'),
    allowed: z.boolean(),
    code: z.string().nullable(),
    reason: z.string().nullable(),
    remedy: z.string().nullable(),
    amount_usd: z.number().describe('estimate committed at admission, not a settled charge'),
    grant_id: z.string().nullable(),
    approval_id: z.string().nullable(),
    effect: z.record(z.string(), z.unknown()).nullable(),
    effect_id: z.string().nullable(),
    observed: z.boolean().describe('true for effects reported by the agent: observed, never enforced'),
    occurred_at: z.string(),
    linked_at: z.string().describe('when the entry was linked into the journal'),
    record_hash: z.string(),
    leaf: z
      .string()
      .describe("hex SHA-256 of the entry's canonical preimage: what an inclusion proof proves"),
    redacted: z.boolean(),
    policy_version: z
      .number()
      .int()
      .nullable()
      .describe(
        "the version of the tenant's policy that decided it (svc policy history); null when not a decision, refused before the policy step, or decided before versions were recorded",
      ),
  })
  .meta({ id: 'Receipt' });
export type ReceiptView = z.output<typeof ReceiptView>;
