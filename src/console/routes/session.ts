import { z } from 'zod';
import { authenticator } from '../../http/auth.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import type { ConsoleDeps } from '../deps.js';

export const SessionView = z
  .object({
    tenant_id: z.string(),
    actor_id: z.string(),
    roles: z.array(z.string()),
    csrf_token: z.string().describe('send it as X-CSRF-Token on every POST of this session'),
    expires_at: z.string(),
  })
  .meta({ id: 'ConsoleSession' });

/** Sign in (a token or the client certificate for a session cookie), read the session, sign out. */
export function sessionRoutes(deps: ConsoleDeps): AnyRoute[] {
  const authenticate = authenticator(deps.store, deps.authMode, deps.clock);
  return [
    defineRoute({
      method: 'POST',
      url: '/api/session',
      summary:
        'sign in: exchange an operator token (Authorization: Bearer, or X-SVC-Token) or, under mutual TLS, the client certificate for a session cookie (HttpOnly, SameSite=Strict, Secure under TLS); any session the browser presented ends',
      tag: 'Console session',
      auth: 'none',
      body: z.strictObject({}).optional(),
      responses: {
        200: { description: 'signed in; the cookie is set', schema: SessionView },
        401: { description: 'no, unknown, expired or revoked credential', schema: ErrorBodySchema },
        403: { description: 'not a registered human with a role', schema: ErrorBodySchema },
      },
      handler: async ({ request, reply }) =>
        deps.sessions.signIn(await authenticate(request), request, reply),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/session',
      summary: 'the signed-in session and its CSRF token',
      tag: 'Console session',
      auth: 'none',
      responses: {
        200: { description: 'the session', schema: SessionView },
        401: { description: 'not signed in, or the session ended', schema: ErrorBodySchema },
      },
      handler: async ({ request }) => (await deps.sessions.resolve(request)).view,
    }),
    defineRoute({
      method: 'POST',
      url: '/api/session/sign-out',
      summary: 'end the session server side and clear its cookie (CSRF token required)',
      tag: 'Console session',
      auth: 'token',
      body: z.strictObject({}).optional(),
      responses: { 200: { description: 'signed out', schema: z.object({ signed_out: z.literal(true) }) } },
      handler: async ({ request, reply }) => {
        await deps.sessions.signOut(request, reply);
        return { signed_out: true as const };
      },
    }),
  ];
}
