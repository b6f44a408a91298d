import { z } from 'zod';

export const ApprovalStatus = z.enum(['pending', 'approved', 'denied', 'consumed', 'expired']);

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
    amount_usd: z.number(),
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
