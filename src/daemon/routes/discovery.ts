import { defineRoute } from '../../http/route.js';
import type { DaemonDeps } from '../deps.js';
import { CapabilitiesResponse } from '../../api/discovery.js';

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
