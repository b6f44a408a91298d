import type { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import type { AccessReceipt, AccessRequestRecord } from '../../store/access-ports.js';
import type { DaemonDeps } from '../deps.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { AccessRequestBody, AccessRequestView, AccessStepResult, RevokeBody } from '../../api/access.js';
import { IdParams } from './tasks.js';

export function accessRequestView(r: AccessRequestRecord): z.output<typeof AccessRequestView> {
  return {
    access_request_id: r.id,
    status: r.status,
    actor_id: r.actorId,
    capability: r.capability,
    reason: r.reason,
    duration_seconds: r.durationSeconds,
    decision: r.decision,
    decided_by: r.decidedBy,
    decided_at: r.decidedAt,
    granted_seconds: r.grantedSeconds,
    note: r.note,
    entitlement_id: r.entitlementId,
    entitlement_expires_at: r.entitlementExpiresAt,
    revoked_by: r.revokedBy,
    revoked_at: r.revokedAt,
    created_at: r.createdAt,
    cards: r.cards.map((c) => ({
      card_id: c.cardId,
      recipient_id: c.recipientId,
      role: c.role,
      status: c.status,
    })),
  };
}

export const receiptView = (r: AccessReceipt) => ({ receipt_id: r.receiptId, sequence: r.sequence });

const READERS =
  'readers: the requester, its manager and the capability’s owners, and humans with the operator, administrator or auditor role';
const notFound = {
  description: 'no such request in this tenant, or not one the caller may read',
  schema: ErrorBodySchema,
};

/** `/v1/access-requests`: ask for a capability from the catalogue, read the request, withdraw it. */
export function accessRoutes(deps: DaemonDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/access-requests',
      operationId: 'requestAccess',
      summary:
        'request access to a capability from the caller’s catalogue; manager cards go to the requester’s manager and the capability’s owners',
      tag: 'Access',
      auth: 'token',
      body: AccessRequestBody,
      responses: {
        201: { description: 'requested, with its cards, and journaled', schema: AccessStepResult },
        403: {
          description: 'the capability is not in the caller’s catalogue (not_in_catalogue)',
          schema: ErrorBodySchema,
        },
        409: {
          description:
            'already held (already_held), a request for it is pending (request_pending), or nobody could decide it (no_decider)',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ caller, body, reply }) => {
        const made = await deps.store.accessRequests.request({
          tenantId: caller.tenantId,
          actorId: caller.actorId,
          capability: body.capability,
          reason: body.reason,
          durationSeconds: body.duration_seconds,
          at: deps.clock(),
        });
        void reply.status(201);
        return { access_request: accessRequestView(made.request), receipt: receiptView(made.receipt) };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/access-requests/:id',
      operationId: 'accessRequest',
      summary: `read an access request and its cards; ${READERS}`,
      tag: 'Access',
      auth: 'token',
      params: IdParams,
      responses: { 200: { description: 'the access request', schema: AccessRequestView }, 404: notFound },
      handler: async ({ caller, params }) => {
        const r = await deps.store.accessRequests.get(caller.actor, params.id, deps.clock());
        if (!r) throw new SvcError('not_found', 'no such access request');
        return accessRequestView(r);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/access-requests/:id/revoke',
      operationId: 'revokeAccessRequest',
      summary:
        'withdraw a pending request, or end an approved one and its entitlement at once: the requester, its manager, the capability’s owners, operators and administrators',
      tag: 'Access',
      auth: 'token',
      params: IdParams,
      body: RevokeBody.optional(),
      responses: {
        200: {
          description: 'revoked and journaled; new decisions are refused at once',
          schema: AccessStepResult,
        },
        403: {
          description: 'the caller may read but not revoke it (not_a_revoker)',
          schema: ErrorBodySchema,
        },
        404: notFound,
        409: { description: 'denied, expired or already revoked (not_revocable)', schema: ErrorBodySchema },
      },
      handler: async ({ caller, params, body }) => {
        const done = await deps.store.accessRequests.revoke(
          caller.actor,
          params.id,
          body?.note ?? null,
          deps.clock(),
        );
        return { access_request: accessRequestView(done.request), receipt: receiptView(done.receipt) };
      },
    }),
  ];
}
