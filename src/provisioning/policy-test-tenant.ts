/**
 * What `svc policy test --tenant T` and the console's test run take from the store for what a
 * suite does not name: the tenant's actors, capabilities, approval tier and stored policy.
 * Only reads.
 */
import { SvcError } from '../core/errors.js';
import type { Registrations } from '../policy/policy-test-run.js';
import type { Store } from '../store/ports.js';

export interface TenantPolicy {
  registrations: Registrations;
  /** the stored policy; undefined: none, so every request is denied */
  policy: { text: string; version: number } | undefined;
}

export async function readTenantPolicy(store: Store, tenantId: string): Promise<TenantPolicy> {
  const approvalTier = await store.tenants.approvalTier(tenantId);
  if (approvalTier === undefined) {
    // A usage error, not "not found": exit 3 means a policy that does not validate here.
    throw new SvcError('usage', `tenant: ${tenantId} does not exist`, {
      field: 'tenant',
      remedy: 'see `svc tenant list`',
    });
  }
  const [actors, capabilities, policy] = await Promise.all([
    store.actors.list(tenantId),
    store.capabilities.list(tenantId),
    store.policies.get(tenantId),
  ]);
  return {
    registrations: {
      tenantId,
      approvalTier,
      actors: new Map(actors.map((a) => [a.id, { kind: a.kind, roles: [...a.roles], manager: a.managerId }])),
      capabilities: new Map(
        capabilities.map((c) => [
          c.name,
          {
            tier: c.tier,
            irreversible: c.irreversible,
            custody: c.custody,
            actions: [...c.actions],
            costMicros: c.costMicros,
          },
        ]),
      ),
    },
    policy: policy === undefined ? undefined : { text: policy.text, version: policy.version },
  };
}
