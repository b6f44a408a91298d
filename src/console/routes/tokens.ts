import { z } from 'zod';
import { requireHuman } from '../../http/auth.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { issueToken, parseTtl, revokeToken } from '../../provisioning/token.js';
import type { ConsoleDeps } from '../deps.js';
import { withFieldNames } from './field-names.js';

export const IssueTokenBody = z.strictObject({
  actor_id: z.string().min(1).max(63).describe('the actor the token authenticates'),
  ttl: z
    .string()
    .min(1)
    .max(16)
    .optional()
    .describe('lifetime such as 90d, 12h, 30m or 45s (default 90d, at most 3650d)'),
  label: z.string().max(200).optional().describe('a note to recognise the token by; never the secret'),
});

const IssuedToken = z
  .object({
    token_id: z.string().describe('the public id: listed and revoked by it'),
    token: z.string().describe('the bearer token: in this answer only, never again'),
    actor_id: z.string(),
    tenant_id: z.string(),
    expires_at: z.string(),
  })
  .meta({ id: 'ConsoleIssuedToken' });

const TokenParams = z.strictObject({ id: z.string().min(1).max(64) });

const denied = { 403: { description: 'not an administrator, or no CSRF token', schema: ErrorBodySchema } };

/**
 * Issue and revoke tokens: an administrator's, through the use cases of `svc token issue`
 * and `svc token revoke`. The secret is in the issue answer only (never stored, logged or
 * put in a URL); the console's answers are `Cache-Control: no-store`.
 */
export function tokenRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/tokens',
      summary:
        'issue a bearer token for an actor of the tenant; the token is in this answer once and stored only as a hash (administrator; CSRF token); as `svc token issue`',
      tag: 'Console people',
      auth: 'token',
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      body: IssueTokenBody,
      responses: {
        200: { description: 'issued; shown once', schema: IssuedToken },
        400: { description: 'a field is wrong; `field` names it', schema: ErrorBodySchema },
        ...denied,
        404: { description: 'no such actor in the tenant', schema: ErrorBodySchema },
      },
      handler: async ({ caller, body, request }) => {
        const issued = await withFieldNames({ actor: 'actor_id' }, async () =>
          issueToken(deps.store, {
            tenantId: caller.tenantId,
            actorId: body.actor_id,
            ttlMs: parseTtl(body.ttl),
            ...(body.label !== undefined ? { label: body.label } : {}),
            now: deps.clock(),
          }),
        );
        // Who issued which token id for whom: never the secret.
        request.log.info(
          {
            admin: {
              action: 'token.issue',
              by: caller.actorId,
              actor_id: issued.actor_id,
              token_id: issued.token_id,
            },
          },
          'console administration',
        );
        return issued;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/tokens/:id/revoke',
      summary:
        'revoke a token of the tenant by its public id; the daemon and the console refuse it from the next request on (administrator; CSRF token); as `svc token revoke`',
      tag: 'Console people',
      auth: 'token',
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      params: TokenParams,
      body: z.strictObject({}).optional(),
      responses: {
        200: {
          description: 'revoked',
          schema: z.object({ token_id: z.string(), tenant_id: z.string(), revoked: z.literal(true) }),
        },
        400: { description: 'not a token id', schema: ErrorBodySchema },
        ...denied,
        404: { description: 'no such token in the tenant', schema: ErrorBodySchema },
      },
      handler: async ({ caller, params, request }) => {
        const r = await revokeToken(deps.store, {
          tenantId: caller.tenantId,
          tokenId: params.id,
          now: deps.clock(),
        });
        request.log.info(
          { admin: { action: 'token.revoke', by: caller.actorId, token_id: r.token_id } },
          'console administration',
        );
        return r;
      },
    }),
  ];
}
