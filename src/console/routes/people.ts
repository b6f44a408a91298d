import { z } from 'zod';
import { ACTOR_KINDS } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import { tokenState } from '../../core/token.js';
import { EntitlementView } from '../../api/access.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { actorView } from '../../provisioning/actor-view.js';
import { permissionView } from '../../provisioning/permission.js';
import type { TokenSummary } from '../../store/ports.js';
import type { ConsoleDeps } from '../deps.js';
import { actorRoutes, ActorView } from './actors.js';
import { capabilityAdminRoutes } from './capability-admin.js';
import { entitlementRoutes, entitlementRow } from './entitlements.js';
import { permissionRoutes } from './permissions.js';
import { requireReader } from './registry.js';
import { tokenRoutes } from './tokens.js';

/** A token as the page lists it: its public id and dates, never the secret or its hash. */
const TokenRow = z
  .object({
    token_id: z.string(),
    label: z.string().nullable(),
    created_at: z.string(),
    expires_at: z.string(),
    revoked_at: z.string().nullable(),
    state: z.enum(['active', 'expired', 'revoked']),
  })
  .meta({ id: 'ConsoleTokenRow' });

const PermissionRow = z.object({ capability: z.string(), granted_at: z.string() });

const Person = ActorView.extend({
  tokens: z.array(TokenRow),
  permissions: z.array(PermissionRow).describe('standing permissions'),
  manages: z.array(z.string()).describe('the agents this human is the accountable manager of'),
}).meta({ id: 'ConsolePerson' });

const PersonDetail = Person.extend({
  entitlements: z
    .array(EntitlementView)
    .describe('entitlements from access requests, oldest first, at most 200'),
}).meta({ id: 'ConsolePersonDetail' });

const PeopleQuery = z.strictObject({ kind: z.enum(ACTOR_KINDS).optional().describe('only this kind') });
const PersonParams = z.strictObject({ id: z.string().min(1).max(63) });

const denied = { 403: { description: 'not an operator, administrator or auditor', schema: ErrorBodySchema } };

function tokenRow(t: TokenSummary, now: Date): z.output<typeof TokenRow> {
  return {
    token_id: t.id,
    label: t.label,
    created_at: t.createdAt,
    expires_at: t.expiresAt,
    revoked_at: t.revokedAt,
    state: tokenState(t, now),
  };
}

/**
 * The People page: humans, agents and services with their tokens (by public id) and
 * standing permissions, one person with entitlements too; and the administrator's writes.
 */
export function peopleRoutes(deps: ConsoleDeps): AnyRoute[] {
  const people = async (tenantId: string) => {
    const [actors, tokens, permissions] = await Promise.all([
      deps.store.actors.list(tenantId),
      deps.store.tokens.list(tenantId),
      deps.store.permissions.list(tenantId),
    ]);
    const now = deps.clock();
    return actors.map((a) => {
      return {
        ...actorView(a),
        tokens: tokens.filter((t) => t.actorId === a.id).map((t) => tokenRow(t, now)),
        permissions: permissions
          .filter((p) => p.actorId === a.id)
          .map((p) => {
            const { capability, granted_at } = permissionView(p);
            return { capability, granted_at };
          }),
        manages: actors.filter((x) => x.managerId === a.id).map((x) => x.id),
      };
    });
  };
  return [
    defineRoute({
      method: 'GET',
      url: '/api/people',
      summary:
        'the humans, agents and services of the tenant, each with manager, roles, tokens (public id and dates; never a secret) and standing permissions (operator, administrator or auditor)',
      tag: 'Console people',
      auth: 'token',
      query: PeopleQuery,
      responses: { 200: { description: 'people', schema: z.object({ items: z.array(Person) }) }, ...denied },
      handler: async ({ caller, query }) => {
        requireReader(caller);
        const all = await people(caller.tenantId);
        return { items: all.filter((p) => query.kind === undefined || p.kind === query.kind) };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/people/:id',
      summary:
        'one actor of the tenant with tokens, standing permissions and entitlements (operator, administrator or auditor)',
      tag: 'Console people',
      auth: 'token',
      params: PersonParams,
      responses: {
        200: { description: 'the person', schema: PersonDetail },
        ...denied,
        404: { description: 'no such actor in the tenant', schema: ErrorBodySchema },
      },
      handler: async ({ caller, params }) => {
        requireReader(caller);
        const person = (await people(caller.tenantId)).find((p) => p.actor_id === params.id);
        if (!person) throw new SvcError('not_found', 'no such actor in this tenant');
        const page = await deps.store.entitlements.list(
          caller.actor,
          { limit: 200 },
          { actorId: person.actor_id },
          deps.clock(),
        );
        return { ...person, entitlements: page.items.map(entitlementRow) };
      },
    }),
    ...actorRoutes(deps),
    ...tokenRoutes(deps),
    ...permissionRoutes(deps),
    ...capabilityAdminRoutes(deps),
    ...entitlementRoutes(deps),
  ];
}
