import type { Capability } from '../../src/core/capability.js';
import type { Store } from '../../src/store/ports.js';
import { capabilityRecord, taskRecord } from './registry-records.js';

const AT = '2026-06-01T12:00:00.000Z';

export function capability(tenantId: string, name: string, over: Partial<Capability> = {}): Capability {
  return capabilityRecord(tenantId, name, AT, { costMicros: 1_500_000n, ...over });
}

export const PERMIT_ALL = 'permit (principal, action, resource);';

/** Register through the store ports, as `svc capability register` and friends do. */
export async function register(
  store: Store,
  tenantId: string,
  opts: {
    caps?: Capability[];
    grants?: [string, string][];
    policy?: string | null;
    tasks?: {
      id: string;
      sponsor: string;
      budget: bigint;
      actors?: string[];
      status?: 'draft' | 'active';
      parent?: string;
    }[];
  },
): Promise<void> {
  for (const c of opts.caps ?? []) await store.capabilities.put(c);
  for (const [actorId, cap] of opts.grants ?? [])
    await store.permissions.grant({ tenantId, actorId, capability: cap, grantedAt: AT });
  if (opts.policy !== null) await store.policies.set(tenantId, opts.policy ?? PERMIT_ALL, AT);
  for (const t of opts.tasks ?? []) {
    const parent = t.parent === undefined ? undefined : await store.tasks.get(tenantId, t.parent);
    await store.tasks.create(
      taskRecord(tenantId, t.id, AT, {
        sponsorId: t.sponsor,
        status: t.status ?? 'active',
        parentId: t.parent ?? null,
        rootId: parent?.rootId ?? t.id,
        budgetMicros: t.budget,
        actors: t.actors ?? [],
      }),
    );
  }
}

/** The registry a guarded-write test decides in: bot holds crm.read and acts on task t1 of tenant acme. */
export const registerBotReader = (store: Store): Promise<void> =>
  register(store, 'acme', {
    caps: [capability('acme', 'crm.read')],
    grants: [['bot', 'crm.read']],
    tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n, actors: ['bot'] }],
  });
