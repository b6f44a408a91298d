import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import { formatUsd } from '../../core/money.js';
import { readsWholeTenant } from '../../core/readers.js';
import type { Caller } from '../../http/caller.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import type { ConsoleDeps } from '../deps.js';

const REMEDY = 'sign in as a human with the operator, administrator or auditor role';

/** The deployment's configuration is read by those who run or audit it. */
export function requireReader(caller: Caller): void {
  if (!readsWholeTenant(caller.actor)) {
    throw new SvcError('forbidden', 'this view needs the operator, administrator or auditor role', {
      remedy: REMEDY,
    });
  }
}

const denied = { 403: { description: 'not an operator, administrator or auditor', schema: ErrorBodySchema } };
const Rows = z.object({ items: z.array(z.object({}).passthrough()) });

/** Read-only views of agents, capabilities, the policy set and the integration surfaces. */
export function registryRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/agents',
      summary: 'the agents of the tenant, each with its manager and standing permissions',
      tag: 'Console registry',
      auth: 'token',
      responses: { 200: { description: 'agents', schema: Rows }, ...denied },
      handler: async ({ caller }) => {
        requireReader(caller);
        const [actors, permissions] = await Promise.all([
          deps.store.actors.list(caller.tenantId),
          deps.store.permissions.list(caller.tenantId),
        ]);
        return {
          items: actors
            .filter((a) => a.kind === 'agent')
            .map((a) => ({
              actor_id: a.id,
              manager_id: a.managerId,
              permissions: permissions.filter((p) => p.actorId === a.id).map((p) => p.capability),
              created_at: a.createdAt,
            })),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/capabilities',
      summary: 'the registered capabilities of the tenant',
      tag: 'Console registry',
      auth: 'token',
      responses: { 200: { description: 'capabilities', schema: Rows }, ...denied },
      handler: async ({ caller }) => {
        requireReader(caller);
        return {
          items: (await deps.store.capabilities.list(caller.tenantId)).map((c) => ({
            name: c.name,
            tier: c.tier,
            irreversible: c.irreversible,
            custody: c.custody,
            actions: c.actions,
            default_amount_usd: formatUsd(c.costMicros),
            requestable: c.requestable,
            approvers: c.approvers,
            owners: c.owners,
            surface_id: c.surfaceId,
            operation: c.operation,
          })),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/policies',
      summary: "the tenant's Cedar policy set, as text",
      tag: 'Console registry',
      auth: 'token',
      responses: {
        200: {
          description: 'the policy set, or null when none is installed (every decision is then refused)',
          schema: z.object({
            policy: z.object({ version: z.number(), text: z.string(), updated_at: z.string() }).nullable(),
          }),
        },
        ...denied,
      },
      handler: async ({ caller }) => {
        requireReader(caller);
        const p = await deps.store.policies.get(caller.tenantId);
        return { policy: p ? { version: p.version, text: p.text, updated_at: p.updatedAt } : null };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/integrations',
      summary:
        'integration surface ids and state (configured surfaces when the console has the integration-operations document, and every stored rotation or revocation); credential references are never shown',
      tag: 'Console registry',
      auth: 'token',
      responses: {
        200: { description: 'surfaces', schema: Rows.extend({ configured: z.boolean() }) },
        ...denied,
      },
      handler: async ({ caller }) => {
        requireReader(caller);
        const states = new Map(
          (await deps.store.surfaces.list(caller.tenantId)).map((s) => [s.surfaceId, s]),
        );
        const specs = deps.surfaces?.forTenant(caller.tenantId) ?? [];
        const ids = [...new Set([...specs.map((s) => s.id), ...states.keys()])].sort();
        return {
          configured: deps.surfaces?.configured ?? false,
          items: ids.map((id) => {
            const spec = specs.find((s) => s.id === id);
            const st = states.get(id);
            return {
              surface_id: id,
              adapter: spec?.adapter ?? null,
              operations: spec ? [...spec.operations.keys()] : [],
              status: st?.status ?? 'active',
              in_document: spec !== undefined,
              rotated_at: st?.rotatedAt ?? null,
              revoked_at: st?.revokedAt ?? null,
            };
          }),
        };
      },
    }),
  ];
}
