import { z } from 'zod';
import type { ManagerCardRecord } from '../../store/access-ports.js';
import type { DaemonDeps } from '../deps.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { CardDecisionBody, CardDecisionResult, CardStatus, ManagerCardView } from '../../api/access.js';
import { accessRequestView, receiptView } from './access.js';
import { entitlementView } from './entitlements.js';

export function managerCardView(c: ManagerCardRecord): z.output<typeof ManagerCardView> {
  return {
    card_id: c.id,
    access_request_id: c.requestId,
    status: c.status,
    role: c.role,
    requester_id: c.requesterId,
    capability: c.capability,
    reason: c.reason,
    duration_seconds: c.durationSeconds,
    request_status: c.requestStatus,
    decided_by: c.decidedBy,
    decided_at: c.decidedAt,
    created_at: c.createdAt,
  };
}

const CardQuery = z.strictObject({
  status: CardStatus.default('pending').describe(
    'only cards in this status (default pending: the cards waiting for you)',
  ),
});

/** Manager cards: the caller's own, and the decision on one of them. */
export function managerCardRoutes(deps: DaemonDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/manager-cards',
      operationId: 'managerCards',
      summary: 'the caller’s own manager cards, oldest first; a plain array (by default the pending ones)',
      tag: 'Access',
      auth: 'token',
      query: CardQuery,
      responses: { 200: { description: 'the caller’s cards', schema: z.array(ManagerCardView) } },
      handler: async ({ caller, query }) =>
        (await deps.store.managerCards.list(caller.actor, { status: query.status }, deps.clock())).map(
          managerCardView,
        ),
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/manager-cards/decide',
      operationId: 'decideManagerCard',
      summary:
        'approve (for at most the requested duration) or deny the access request behind one of the caller’s cards; only a registered human manager or owner, never the requester; the first decision wins',
      tag: 'Access',
      auth: 'token',
      body: CardDecisionBody,
      responses: {
        200: {
          description: 'decided and journaled; an approval created the entitlement',
          schema: CardDecisionResult,
        },
        403: {
          description:
            'the caller is not a human (not_a_decider), is the requester (self_approval), or is no longer its manager or an owner (not_a_decider)',
          schema: ErrorBodySchema,
        },
        404: { description: 'no such card addressed to the caller', schema: ErrorBodySchema },
        409: {
          description: 'already decided (already_decided) or withdrawn (request_revoked)',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ caller, body }) => {
        const d = await deps.store.managerCards.decide({
          tenantId: caller.tenantId,
          cardId: body.card_id,
          deciderId: caller.actorId,
          decision: body.decision,
          durationSeconds: body.duration_seconds,
          note: body.note ?? null,
          at: deps.clock(),
        });
        return {
          card: managerCardView(d.card),
          access_request: accessRequestView(d.request),
          entitlement: d.entitlement && entitlementView(d.entitlement),
          receipt: receiptView(d.receipt),
        };
      },
    }),
  ];
}
