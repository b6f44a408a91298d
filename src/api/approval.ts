import { z } from 'zod';

export const ApprovalStatus = z.enum(['pending', 'approved', 'denied', 'consumed', 'expired']);

export const AmountSource = z
  .enum(['requester_estimate', 'capability_default', 'params'])
  .meta({ id: 'AmountSource' })
  .describe(
    "where amount_usd came from: the requester's own estimate (nobody checked it), the capability's default estimate, or the params the operation takes its amount from (what the provider is asked for)",
  );

export const ProviderRequestView = z
  .object({
    surface_id: z.string(),
    operation: z.string(),
    method: z.string(),
    url: z.string(),
    headers: z
      .record(z.string(), z.string())
      .describe("every header the operation sets; the surface's credential is not among them"),
    credential_header: z
      .string()
      .describe(
        "the header the daemon adds the surface's credential to at execution; its value is never shown",
      ),
    body: z.string().nullable().describe('the exact body text the provider receives, or null when none'),
  })
  .meta({ id: 'ProviderRequest' });

export const ApprovalView = z
  .object({
    approval_id: z.string(),
    status: ApprovalStatus.describe('expired is computed: pending or approved past expires_at'),
    intent_id: z.string(),
    task_id: z.string(),
    effect_key_step: z.string(),
    capability: z.string(),
    action: z.string(),
    intent: z.string().nullable().describe("the requester's short description of what it asked to do"),
    requester_id: z.string().describe('the actor whose request waits; never its approver'),
    amount_usd: z
      .number()
      .describe(
        "the amount the approval binds and an allowing resume reserves; the requester's estimate unless amount_source says otherwise",
      ),
    amount_source: AmountSource.nullable().describe(
      'where amount_usd came from; null for approvals opened before it was recorded',
    ),
    params: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe('the params the deferred request carried, exactly; null when it carried none'),
    request: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe(
        'the request body the approval binds (correlation fields excluded): request_digest is hex(SHA-256(CJSON(request))); null for approvals opened before it was stored, and after redaction',
      ),
    provider_request: ProviderRequestView.nullable().describe(
      'brokered capabilities: the request the operation makes of these params, as the connector would send it, without the credential; null otherwise, or when the params no longer fit the configured operation (a resume is then refused)',
    ),
    request_digest: z.string().describe('the approval binds exactly this request body'),
    decided_by: z.string().nullable(),
    decided_at: z.string().nullable(),
    channel: z.string().nullable().describe('where the decision came from: api, cli, console, chat, collab'),
    note: z.string().nullable(),
    expires_at: z.string(),
    created_at: z.string(),
  })
  .meta({ id: 'Approval' });

export const ApprovalDecisionBody = z
  .strictObject({
    decision: z.enum(['approve', 'deny']),
    note: z.string().max(1000).optional().describe('why; journaled with the decision'),
  })
  .meta({ id: 'ApprovalDecision' });

export const ApprovalDecisionResult = z
  .object({
    approval: ApprovalView,
    receipt_id: z.string().describe('the journal receipt of this decision'),
    sequence: z.number().int().describe("its position in the tenant's journal"),
  })
  .meta({ id: 'ApprovalDecisionResult' });
