import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import { ErrorBodySchema } from '../../daemon/openapi.js';
import { defineRoute, type AnyRoute } from '../../daemon/route.js';
import { pageLimit } from '../../daemon/schemas/page.js';
import { approvalView } from '../../daemon/routes/approvals.js';
import {
  ApprovalDecisionBody,
  ApprovalDecisionResult,
  ApprovalStatus,
  ApprovalView,
} from '../../daemon/schemas/approval.js';
import type { ConsoleDeps } from '../deps.js';

const ApprovalsQuery = z.strictObject({
  status: ApprovalStatus.default('pending'),
  limit: pageLimit(100),
});

/**
 * Approvals as the console shows and decides them. Deciding goes through the same store
 * function as the API and the chat channels (`approvals.decide`), so the same rules hold
 * (approver role or named approver, never the requester) and the first decision wins.
 */
export function approvalRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/approvals',
      summary: 'approvals the signed-in human may read, oldest first (default: pending)',
      tag: 'Console approvals',
      auth: 'token',
      query: ApprovalsQuery,
      responses: {
        200: { description: 'the approvals', schema: z.object({ items: z.array(ApprovalView) }) },
      },
      handler: async ({ caller, query }) => {
        const page = await deps.store.approvals.list(
          caller.actor,
          { limit: query.limit },
          { status: query.status },
          deps.clock(),
        );
        return { items: page.items.map(approvalView) };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/approvals/:id/decision',
      summary:
        'approve or deny (CSRF token); approvers or the capability’s named approvers, never the requester; the first decision wins',
      tag: 'Console approvals',
      auth: 'token',
      params: z.strictObject({ id: z.string().min(1).max(100) }),
      body: ApprovalDecisionBody,
      responses: {
        200: { description: 'decided and journaled', schema: ApprovalDecisionResult },
        403: { description: 'not an approver of this capability, or the requester', schema: ErrorBodySchema },
        404: { description: 'no such approval visible to the caller', schema: ErrorBodySchema },
        409: { description: 'already decided, consumed or expired', schema: ErrorBodySchema },
      },
      handler: async ({ caller, params, body }) => {
        if (!(await deps.store.approvals.get(caller.actor, params.id, deps.clock()))) {
          throw new SvcError('not_found', 'no such approval');
        }
        const decided = await deps.store.approvals.decide({
          tenantId: caller.tenantId,
          approvalId: params.id,
          deciderId: caller.actorId,
          decision: body.decision,
          note: body.note ?? null,
          channel: 'console',
          at: deps.clock(),
        });
        return {
          approval: approvalView(decided.approval),
          receipt_id: decided.receiptId,
          sequence: decided.sequence,
        };
      },
    }),
  ];
}
