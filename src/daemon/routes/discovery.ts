import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import type { DaemonDeps } from '../deps.js';

export const CapabilityEntry = z
  .object({
    name: z.string(),
    tier: z.number().int(),
    irreversible: z.boolean(),
    custody: z.enum(['grant', 'brokered', 'pass_through']),
    actions: z.array(z.string()),
  })
  .meta({ id: 'CapabilityEntry' });

export const CapabilitiesResponse = z.object({
  tenant_id: z.string().describe("the caller's tenant"),
  actor_id: z.string().describe('the caller'),
  capabilities: z
    .array(CapabilityEntry)
    .describe('capabilities this caller may use; empty means none were returned'),
});

export function discoveryRoutes(deps: DaemonDeps) {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/capabilities',
      operationId: 'capabilities',
      summary: 'capabilities this caller may use',
      tag: 'Discovery',
      auth: 'token',
      responses: { 200: { description: 'the caller and its capabilities', schema: CapabilitiesResponse } },
      handler: async ({ caller }) => ({
        tenant_id: caller.tenantId,
        actor_id: caller.actorId,
        capabilities: await deps.capabilitiesFor(caller),
      }),
    }),
  ];
}
