import { checkCapabilityName } from '../core/capability.js';
import { SvcError } from '../core/errors.js';
import { checkSlug } from '../core/ids.js';
import type { Store } from '../store/ports.js';
import type { Permission, PutResult } from '../store/registry-ports.js';
import { requireActor, requireTenant } from './references.js';

/** The stable `--json` shape of a standing permission. */
export interface PermissionView {
  tenant_id: string;
  actor_id: string;
  capability: string;
  granted_at: string;
}

export interface PermissionRef {
  tenantId: string;
  actorId: string;
  capability: string;
}

export function permissionView(p: Permission): PermissionView {
  return { tenant_id: p.tenantId, actor_id: p.actorId, capability: p.capability, granted_at: p.grantedAt };
}

export async function requireCapability(store: Store, tenantId: string, name: string): Promise<void> {
  if (!(await store.capabilities.get(tenantId, checkCapabilityName('capability', name)))) {
    throw new SvcError('not_found', `capability ${name} is not registered in tenant ${tenantId}`, {
      remedy: `see \`svc capability list --tenant ${tenantId}\`, or register it with \`svc capability register\``,
    });
  }
}

/** A standing permission of a registered actor on a registered capability; granting twice keeps the first. */
export async function grantPermission(
  store: Store,
  ref: PermissionRef,
  now: Date,
): Promise<PermissionView & { result: PutResult }> {
  await requireTenant(store, ref.tenantId);
  await requireActor(store, ref.tenantId, checkSlug('actor', ref.actorId));
  await requireCapability(store, ref.tenantId, ref.capability);
  const result = await store.permissions.grant({ ...ref, grantedAt: now.toISOString() });
  const stored = (await store.permissions.list(ref.tenantId, ref.actorId)).find(
    (p) => p.capability === ref.capability,
  );
  return { ...permissionView(stored ?? { ...ref, grantedAt: now.toISOString() }), result };
}

/** Stops new decisions at once; an entitlement the actor holds for the capability is not touched. */
export async function revokePermission(
  store: Store,
  ref: PermissionRef,
): Promise<{ tenant_id: string; actor_id: string; capability: string; revoked: true }> {
  await requireTenant(store, ref.tenantId);
  checkSlug('actor', ref.actorId);
  checkCapabilityName('capability', ref.capability);
  if (!(await store.permissions.revoke(ref.tenantId, ref.actorId, ref.capability))) {
    throw new SvcError(
      'not_found',
      `${ref.actorId} holds no standing permission on ${ref.capability} in tenant ${ref.tenantId}`,
      { remedy: `see \`svc permission list --tenant ${ref.tenantId} --actor ${ref.actorId}\`` },
    );
  }
  return { tenant_id: ref.tenantId, actor_id: ref.actorId, capability: ref.capability, revoked: true };
}

export async function listPermissions(
  store: Store,
  opts: { tenantId: string; actorId?: string; capability?: string },
): Promise<PermissionView[]> {
  await requireTenant(store, opts.tenantId);
  // A typo in a filter should say so, not print an empty table.
  if (opts.actorId !== undefined) await requireActor(store, opts.tenantId, checkSlug('actor', opts.actorId));
  if (opts.capability !== undefined) await requireCapability(store, opts.tenantId, opts.capability);
  const all = await store.permissions.list(opts.tenantId, opts.actorId);
  return all
    .filter((p) => opts.capability === undefined || p.capability === opts.capability)
    .map(permissionView);
}
