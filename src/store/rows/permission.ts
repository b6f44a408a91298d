import type { Permission } from '../registry-ports.js';

/** A permissions row as both drivers return it. */
export interface PermissionRow {
  tenant_id: string;
  actor_id: string;
  capability: string;
  granted_at: string;
}

export function toPermission(r: PermissionRow): Permission {
  return { tenantId: r.tenant_id, actorId: r.actor_id, capability: r.capability, grantedAt: r.granted_at };
}
