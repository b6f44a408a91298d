import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { approvalViewOf, approvalViews, type ApprovalContext } from '../../api/approval-view.js';
import {
  ApprovalDecisionBody,
  ApprovalDecisionResult,
  ApprovalStatus,
  ApprovalView,
} from '../../api/approval.js';
import { decodeCursor, PageQuery, pageOf, wirePage } from '../../api/page.js';
import { Surfaces } from '../../integration/surfaces.js';
import type { ConsoleDeps } from '../deps.js';

const ApprovalsQuery = PageQuery.extend({
  status: z
    .enum([...ApprovalStatus.options, 'history'])
    .default('pending')
    .describe('history: every approval no longer pending (approved, denied, consumed, expired)'),
  requester: z.string().min(1).max(200).optional().describe('only approvals this actor asked for'),
  capability: z.string().min(1).max(200).optional().describe('only approvals of this capability'),
});
const SCOPE = 'console-approvals';
const CursorKey = z.tuple([z.string(), z.string()]);

const NO_SURFACES = new Surfaces(undefined);
const context = (deps: ConsoleDeps): ApprovalContext => ({
  store: deps.store,
  surfaces: deps.surfaces ?? NO_SURFACES,
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
      summary:
        'approvals the signed-in human may read, newest first, paged (default: pending; history: decided and expired, with who decided, when and through which channel); filter by requester or capability',
      tag: 'Console approvals',
      auth: 'token',
      query: ApprovalsQuery,
      responses: {
        200: { description: 'a page of approvals', schema: pageOf(ApprovalView) },
      },
      handler: async ({ caller, query }) => {
        const key = query.cursor === undefined ? undefined : decodeCursor(query.cursor, CursorKey, SCOPE);
        const page = await deps.store.approvals.list(
          caller.actor,
          { limit: query.limit, after: key && { createdAt: key[0], id: key[1] } },
          {
            status: query.status,
            order: 'newest',
            ...(query.requester !== undefined ? { requesterId: query.requester } : {}),
            ...(query.capability !== undefined ? { capability: query.capability } : {}),
          },
          deps.clock(),
        );
        const items = await approvalViews(context(deps), caller.tenantId, page.items);
        return wirePage({ items, next: page.next && [page.next.createdAt, page.next.id] }, SCOPE);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/approvals/:id',
      summary:
        'one approval the signed-in human may read, in any status (the console opens #/approvals/{id} links with it; reading never decides)',
      tag: 'Console approvals',
      auth: 'token',
      params: z.strictObject({ id: z.string().min(1).max(100) }),
      responses: {
        200: { description: 'the approval', schema: ApprovalView },
        404: { description: 'no such approval visible to the caller', schema: ErrorBodySchema },
      },
      handler: async ({ caller, params }) => {
        // One answer for "none" and "not yours to read": a link must not tell which. The
        // reason does not repeat the id (answers never echo the request); the page shows it.
        const a = await deps.store.approvals.get(caller.actor, params.id, deps.clock());
        if (!a) throw new SvcError('not_found', 'no such approval that you may read');
        return approvalViewOf(context(deps), caller.tenantId, a);
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
          approval: await approvalViewOf(context(deps), caller.tenantId, decided.approval),
          receipt_id: decided.receiptId,
          sequence: decided.sequence,
        };
      },
    }),
  ];
}
