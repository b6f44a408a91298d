import { z } from 'zod';

// Apart from the route, as every family's schemas are: DaemonDeps names CapabilityEntry,
// and the route needs DaemonDeps.
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
