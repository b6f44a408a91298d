import { z } from 'zod';
import { ACTOR_KINDS, ROLES } from '../../core/actor.js';
import { requireHuman } from '../../http/auth.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { addActor } from '../../provisioning/actor.js';
import { actorView } from '../../provisioning/actor-view.js';
import type { ConsoleDeps } from '../deps.js';
import { withFieldNames } from './field-names.js';

const optionalText = (max: number) => z.string().max(max).nullable().optional();

export const AddActorBody = z.strictObject({
  actor_id: z.string().min(1).max(63).describe('a slug: lowercase letters, digits, ".", "_" or "-"'),
  kind: z.enum(ACTOR_KINDS),
  roles: z.array(z.enum(ROLES)).max(ROLES.length).optional().describe('a human’s roles; none for others'),
  manager: optionalText(63).describe('an agent’s accountable human manager (required for agents)'),
  display_name: optionalText(200).describe('a readable name; never used to identify the actor'),
  cert_subject: optionalText(1024).describe('the client-certificate subject under mutual TLS'),
  chat_user_id: optionalText(128).describe('the team-chat user id that decides approvals as this human'),
  collab_user_id: optionalText(128).describe('the collaboration-suite user object id, likewise'),
});

export const ActorView = z
  .object({
    tenant_id: z.string(),
    actor_id: z.string(),
    kind: z.enum(ACTOR_KINDS),
    roles: z.array(z.string()),
    manager: z.string().nullable(),
    cert_subject: z.string().nullable(),
    display_name: z.string().nullable(),
    chat_user_id: z.string().nullable(),
    collab_user_id: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'ConsoleActor' });

/** The use case's field names (its CLI flags) as this body names them. */
const FIELDS = {
  id: 'actor_id',
  role: 'roles',
  'display-name': 'display_name',
  'cert-subject': 'cert_subject',
  'chat-user-id': 'chat_user_id',
  'collab-user-id': 'collab_user_id',
};

/** Add a human, an agent or a service: an administrator's, through `svc actor add`'s use case. */
export function actorRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/actors',
      summary:
        'register an actor: a human with roles, an agent with its accountable manager, or a service (administrator; CSRF token); as `svc actor add`',
      tag: 'Console people',
      auth: 'token',
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      body: AddActorBody,
      responses: {
        200: { description: 'registered', schema: ActorView },
        400: { description: 'a field is wrong; `field` names it', schema: ErrorBodySchema },
        403: { description: 'not an administrator, or no CSRF token', schema: ErrorBodySchema },
        409: { description: 'an actor with this id exists in the tenant', schema: ErrorBodySchema },
      },
      handler: async ({ caller, body, request }) => {
        const actor = await withFieldNames(FIELDS, () =>
          addActor(
            deps.store,
            {
              tenantId: caller.tenantId,
              id: body.actor_id,
              kind: body.kind,
              roles: body.roles ?? [],
              managerId: body.manager ?? null,
              certSubject: body.cert_subject ?? null,
              displayName: body.display_name ?? null,
              chatUserId: body.chat_user_id ?? null,
              collabUserId: body.collab_user_id ?? null,
            },
            deps.clock(),
          ),
        );
        request.log.info(
          { admin: { action: 'actor.add', by: caller.actorId, actor_id: actor.id, kind: actor.kind } },
          'console administration',
        );
        return actorView(actor);
      },
    }),
  ];
}
