import { z } from 'zod';
import { CUSTODIES, MAX_TIER } from '../../core/capability.js';
import { requireHuman } from '../../http/auth.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { registerCapability } from '../../provisioning/capability.js';
import type { ConsoleDeps } from '../deps.js';
import { withFieldNames } from './field-names.js';

const actorIds = z.array(z.string().min(1).max(63)).max(100);

export const CapabilityBody = z.strictObject({
  name: z.string().min(1).max(128).describe('such as crm.contacts'),
  tier: z.number().int().min(0).max(MAX_TIER).describe('risk tier 0 to 9'),
  actions: z.array(z.string().min(1).max(32)).min(1).max(32).describe('the verbs a request may name'),
  irreversible: z.boolean().optional().describe('every use needs a human approval'),
  custody: z.enum(CUSTODIES).optional().describe('default grant'),
  cost_usd: z.number().optional().describe('default amount reserved when a request names none (default 0)'),
  requestable: z.boolean().optional().describe('listed in the catalogue'),
  approvers: actorIds.optional().describe('registered humans who may approve its use'),
  owners: actorIds.optional().describe('registered humans who receive access-request cards'),
  surface: z.string().min(1).max(63).optional().describe('brokered custody: the surface'),
  operation: z.string().min(1).max(128).optional().describe('brokered custody: the operation'),
});

const Registered = z
  .object({
    tenant_id: z.string(),
    name: z.string(),
    tier: z.number(),
    irreversible: z.boolean(),
    custody: z.enum(CUSTODIES),
    actions: z.array(z.string()),
    cost_usd: z.number(),
    requestable: z.boolean(),
    approvers: z.array(z.string()),
    owners: z.array(z.string()),
    surface: z.string().nullable(),
    operation: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    result: z.enum(['created', 'updated', 'unchanged']),
    changed: z.array(z.string()).describe('the fields an update changed'),
  })
  .meta({ id: 'ConsoleRegisteredCapability' });

const FIELDS = { 'cost-usd': 'cost_usd', approver: 'approvers', owner: 'owners' };

/**
 * Register a capability, or edit one (the body is the whole registration, as the flags of
 * `svc capability register` are): an administrator's, through the same use case, so an edit
 * that would drop a verb the stored policy names is refused the same way.
 */
export function capabilityAdminRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/capabilities',
      summary:
        'register a capability, or replace the registration of one with the same name: the body is the whole registration (administrator; CSRF token); as `svc capability register`',
      tag: 'Console registry',
      auth: 'token',
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      body: CapabilityBody,
      responses: {
        200: { description: 'created, updated (with the fields changed) or unchanged', schema: Registered },
        400: { description: 'a field is wrong; `field` names it', schema: ErrorBodySchema },
        403: { description: 'not an administrator, or no CSRF token', schema: ErrorBodySchema },
      },
      handler: async ({ caller, body, request }) => {
        const cap = await withFieldNames(FIELDS, () =>
          registerCapability(
            deps.store,
            {
              tenantId: caller.tenantId,
              name: body.name,
              tier: body.tier,
              actions: body.actions,
              irreversible: body.irreversible ?? false,
              custody: body.custody ?? 'grant',
              requestable: body.requestable ?? false,
              approvers: body.approvers ?? [],
              owners: body.owners ?? [],
              ...(body.cost_usd !== undefined ? { costUsd: body.cost_usd } : {}),
              ...(body.surface !== undefined ? { surface: body.surface } : {}),
              ...(body.operation !== undefined ? { operation: body.operation } : {}),
            },
            deps.clock(),
          ),
        );
        request.log.info(
          {
            admin: { action: 'capability.register', by: caller.actorId, name: cap.name, result: cap.result },
          },
          'console administration',
        );
        return cap;
      },
    }),
  ];
}
