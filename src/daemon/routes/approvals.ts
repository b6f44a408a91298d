import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import { approvalViewOf, approvalViews } from '../../api/approval-view.js';
import type { DaemonDeps } from '../deps.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import {
  ApprovalDecisionBody,
  ApprovalDecisionResult,
  ApprovalStatus,
  ApprovalView,
} from '../../api/approval.js';
import { decodeCursor, PageQuery, pageOf, wirePage } from '../../api/page.js';
import { IdParams } from './tasks.js';

const ApprovalQuery = PageQuery.extend({
  status: ApprovalStatus.optional().describe('only approvals in this status; expired is computed'),
});
const SCOPE = 'approvals';
const CursorKey = z.tuple([z.string(), z.string()]);

const READERS =
  'readers: humans with the approver, operator or administrator role, the capability’s named approvers, and the requester';

/** Approvals: read them, and decide them (the decision route is this daemon's addition to the spec). */
export function approvalRoutes(deps: DaemonDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/approvals',
      operationId: 'approvals',
      summary: `list approvals; paged, oldest first; ${READERS}`,
      tag: 'Access',
      auth: 'token',
      query: ApprovalQuery,
      responses: { 200: { description: 'a page of approvals', schema: pageOf(ApprovalView) } },
      handler: async ({ caller, query }) => {
        const key = query.cursor === undefined ? undefined : decodeCursor(query.cursor, CursorKey, SCOPE);
        const page = await deps.store.approvals.list(
          caller.actor,
          { limit: query.limit, after: key && { createdAt: key[0], id: key[1] } },
          query.status !== undefined ? { status: query.status } : {},
          deps.clock(),
        );
        const items = await approvalViews(deps, caller.tenantId, page.items);
        return wirePage({ items, next: page.next && [page.next.createdAt, page.next.id] }, SCOPE);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/approvals/:id',
      operationId: 'approval',
      summary: `read an approval; ${READERS}`,
      tag: 'Access',
      auth: 'token',
      params: IdParams,
      responses: {
        200: { description: 'the approval', schema: ApprovalView },
        404: {
          description: 'no such approval in this tenant, or not one the caller may read',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ caller, params }) => {
        const approval = await deps.store.approvals.get(caller.actor, params.id, deps.clock());
        if (!approval) throw new SvcError('not_found', 'no such approval');
        return approvalViewOf(deps, caller.tenantId, approval);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/approvals/:id/decision',
      operationId: 'decideApproval',
      summary:
        'approve or deny (this daemon’s addition to the spec): registered humans with the approver role or named by the capability, never the requester; the first decision wins',
      tag: 'Access',
      auth: 'token',
      params: IdParams,
      body: ApprovalDecisionBody,
      responses: {
        200: { description: 'decided and journaled', schema: ApprovalDecisionResult },
        403: {
          description:
            'the caller is the requester (self_approval) or may not approve this capability (not_an_approver)',
          schema: ErrorBodySchema,
        },
        404: {
          description: 'no such approval in this tenant, or not one the caller may read',
          schema: ErrorBodySchema,
        },
        409: {
          description: 'already decided or consumed (already_decided), or expired (approval_expired)',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ caller, params, body }) => {
        const decided = await deps.store.approvals.decide({
          tenantId: caller.tenantId,
          approvalId: params.id,
          deciderId: caller.actorId,
          decision: body.decision,
          note: body.note ?? null,
          channel: 'api',
          at: deps.clock(),
        });
        return {
          approval: await approvalViewOf(deps, caller.tenantId, decided.approval),
          receipt_id: decided.receiptId,
          sequence: decided.sequence,
        };
      },
    }),
  ];
}
