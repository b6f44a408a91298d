import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import { SLUG } from '../../core/ids.js';
import type { EntitlementRecord } from '../../store/access-ports.js';
import type { DaemonDeps } from '../deps.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { EntitlementRevokeResult, EntitlementStatus, EntitlementView, RevokeBody } from '../../api/access.js';
import { decodeCursor, PageQuery, pageOf, wirePage } from '../../api/page.js';
import { receiptView } from './access.js';
import { IdParams } from './tasks.js';

export function entitlementView(e: EntitlementRecord): z.output<typeof EntitlementView> {
  return {
    entitlement_id: e.id,
    actor_id: e.actorId,
    capability: e.capability,
    status: e.status,
    access_request_id: e.accessRequestId,
    granted_by: e.grantedBy,
    created_at: e.createdAt,
    expires_at: e.expiresAt,
    revoked_at: e.revokedAt,
    revoked_by: e.revokedBy,
  };
}

const EntitlementQuery = PageQuery.extend({
  status: EntitlementStatus.optional().describe('only entitlements in this status; expired is computed'),
  actor_id: z.string().regex(SLUG).optional().describe('only entitlements this actor holds'),
});
const SCOPE = 'entitlements';
const CursorKey = z.tuple([z.string(), z.string()]);

const READERS =
  'readers: the holder, its manager, the capability’s owners, and humans with the operator, administrator or auditor role';

/** Entitlements: list them (paged), and revoke one (this daemon's addition to the spec). */
export function entitlementRoutes(deps: DaemonDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/entitlements',
      operationId: 'entitlements',
      summary: `list entitlements; paged, oldest first; ${READERS}`,
      tag: 'Access',
      auth: 'token',
      query: EntitlementQuery,
      responses: { 200: { description: 'a page of entitlements', schema: pageOf(EntitlementView) } },
      handler: async ({ caller, query }) => {
        const key = query.cursor === undefined ? undefined : decodeCursor(query.cursor, CursorKey, SCOPE);
        const page = await deps.store.entitlements.list(
          caller.actor,
          { limit: query.limit, after: key && { createdAt: key[0], id: key[1] } },
          {
            ...(query.status !== undefined ? { status: query.status } : {}),
            ...(query.actor_id !== undefined ? { actorId: query.actor_id } : {}),
          },
          deps.clock(),
        );
        return wirePage(
          { items: page.items.map(entitlementView), next: page.next && [page.next.createdAt, page.next.id] },
          SCOPE,
        );
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/entitlements/:id',
      summary: `read an entitlement; ${READERS}`,
      tag: 'Access',
      auth: 'token',
      params: IdParams,
      responses: {
        200: { description: 'the entitlement', schema: EntitlementView },
        404: {
          description: 'no such entitlement in this tenant, or not one the caller may read',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ caller, params }) => {
        const e = await deps.store.entitlements.get(caller.actor, params.id, deps.clock());
        if (!e) throw new SvcError('not_found', 'no such entitlement');
        return entitlementView(e);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/entitlements/:id/revoke',
      summary:
        'revoke an entitlement (this daemon’s addition to the spec): new decisions are refused at once; the holder, its manager, the capability’s owners, operators and administrators',
      tag: 'Access',
      auth: 'token',
      params: IdParams,
      body: RevokeBody.optional(),
      responses: {
        200: { description: 'revoked and journaled', schema: EntitlementRevokeResult },
        403: {
          description: 'the caller may read but not revoke it (not_a_revoker)',
          schema: ErrorBodySchema,
        },
        404: {
          description: 'no such entitlement in this tenant, or not one the caller may read',
          schema: ErrorBodySchema,
        },
        409: { description: 'already expired or revoked (not_revocable)', schema: ErrorBodySchema },
      },
      handler: async ({ caller, params, body }) => {
        const done = await deps.store.entitlements.revoke(
          caller.actor,
          params.id,
          body?.note ?? null,
          deps.clock(),
        );
        return { entitlement: entitlementView(done.entitlement), receipt: receiptView(done.receipt) };
      },
    }),
  ];
}
