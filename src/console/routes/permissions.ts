import { z } from 'zod';
import { requireHuman } from '../../http/auth.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { grantPermission, revokePermission } from '../../provisioning/permission.js';
import type { ConsoleDeps } from '../deps.js';
import { withFieldNames } from './field-names.js';

export const PermissionBody = z.strictObject({
  actor_id: z.string().min(1).max(63).describe('a registered actor of the tenant'),
  capability: z.string().min(1).max(128).describe('a registered capability of the tenant'),
});

const denied = { 403: { description: 'not an administrator, or no CSRF token', schema: ErrorBodySchema } };
const FIELDS = { actor: 'actor_id' };

/**
 * Standing permissions: an administrator grants and revokes them through the use cases of
 * `svc permission grant` and `svc permission revoke`; a revocation refuses new decisions at once.
 */
export function permissionRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/permissions',
      summary:
        'grant an actor a standing permission on a capability; granting twice keeps the first (administrator; CSRF token); as `svc permission grant`',
      tag: 'Console people',
      auth: 'token',
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      body: PermissionBody,
      responses: {
        200: {
          description: 'granted (result created) or already held (result unchanged)',
          schema: z.object({
            tenant_id: z.string(),
            actor_id: z.string(),
            capability: z.string(),
            granted_at: z.string(),
            result: z.enum(['created', 'updated', 'unchanged']),
          }),
        },
        400: { description: 'a field is wrong; `field` names it', schema: ErrorBodySchema },
        ...denied,
        404: { description: 'no such actor or capability in the tenant', schema: ErrorBodySchema },
      },
      handler: async ({ caller, body, request }) => {
        const p = await withFieldNames(FIELDS, () =>
          grantPermission(
            deps.store,
            { tenantId: caller.tenantId, actorId: body.actor_id, capability: body.capability },
            deps.clock(),
          ),
        );
        request.log.info(
          {
            admin: {
              action: 'permission.grant',
              by: caller.actorId,
              actor_id: p.actor_id,
              capability: p.capability,
            },
          },
          'console administration',
        );
        return p;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/permissions/revoke',
      summary:
        "revoke an actor's standing permission on a capability; new decisions are refused at once (administrator; CSRF token); as `svc permission revoke`",
      tag: 'Console people',
      auth: 'token',
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      body: PermissionBody,
      responses: {
        200: {
          description: 'revoked',
          schema: z.object({
            tenant_id: z.string(),
            actor_id: z.string(),
            capability: z.string(),
            revoked: z.literal(true),
          }),
        },
        400: { description: 'a field is wrong; `field` names it', schema: ErrorBodySchema },
        ...denied,
        404: { description: 'the actor holds no standing permission on it', schema: ErrorBodySchema },
      },
      handler: async ({ caller, body, request }) => {
        const r = await withFieldNames(FIELDS, () =>
          revokePermission(deps.store, {
            tenantId: caller.tenantId,
            actorId: body.actor_id,
            capability: body.capability,
          }),
        );
        request.log.info(
          {
            admin: {
              action: 'permission.revoke',
              by: caller.actorId,
              actor_id: r.actor_id,
              capability: r.capability,
            },
          },
          'console administration',
        );
        return r;
      },
    }),
  ];
}
