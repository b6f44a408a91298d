import { z } from 'zod';
import { EntitlementRevokeResult, RevokeBody, type EntitlementView } from '../../api/access.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import type { EntitlementRecord } from '../../store/access-ports.js';
import type { ConsoleDeps } from '../deps.js';

export function entitlementRow(e: EntitlementRecord): z.output<typeof EntitlementView> {
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

const EntitlementParams = z.strictObject({ id: z.string().min(1).max(200) });

/**
 * Revoke an entitlement from the console: the store function `POST /v1/entitlements/{id}/revoke`
 * (and so `svc entitlements revoke`) calls, with its own rule of who may (the holder's
 * manager, the capability's owners, operators and administrators) and its journal record.
 */
export function entitlementRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/entitlements/:id/revoke',
      summary:
        'revoke an entitlement: new decisions are refused at once, and the revocation is journaled (its holder’s manager, the capability’s owners, operators and administrators; CSRF token); as `svc entitlements revoke`',
      tag: 'Console people',
      auth: 'token',
      params: EntitlementParams,
      body: RevokeBody.optional(),
      responses: {
        200: { description: 'revoked and journaled', schema: EntitlementRevokeResult },
        403: {
          description: 'may read but not revoke it (not_a_revoker), or no CSRF token',
          schema: ErrorBodySchema,
        },
        404: { description: 'no such entitlement that the signer may read', schema: ErrorBodySchema },
        409: { description: 'already expired or revoked (not_revocable)', schema: ErrorBodySchema },
      },
      handler: async ({ caller, params, body, request }) => {
        const done = await deps.store.entitlements.revoke(
          caller.actor,
          params.id,
          body?.note ?? null,
          deps.clock(),
        );
        request.log.info(
          {
            admin: { action: 'entitlement.revoke', by: caller.actorId, entitlement_id: done.entitlement.id },
          },
          'console administration',
        );
        return {
          entitlement: entitlementRow(done.entitlement),
          receipt: { receipt_id: done.receipt.receiptId, sequence: done.receipt.sequence },
        };
      },
    }),
  ];
}
