import { entitlementStatus, type EntitlementFacts } from '../../core/access.js';
import type { StoredEntitlement } from '../../core/entitlement-revocation.js';
import type { EntitlementRecord } from '../access-ports.js';
import type { DbInt } from './numbers.js';

/** An entitlement joined with who granted it, the holder's manager and the capability's owners and tier. */
export interface EntitlementRow {
  tenant_id: string;
  id: string;
  actor_id: string;
  capability: string;
  access_request_id: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
  granted_by: string | null;
  /** the holder's accountable manager */
  manager_id: string | null;
  /** the capability's owners as registered now (JSON array) */
  owners: string | null;
  tier: DbInt | null;
}

/** The joined read of an `EntitlementRow`, the same in both dialects; each adapter adds its WHERE. */
export const ENTITLEMENT_SELECT = `SELECT e.*, r.decided_by AS granted_by, a.manager_id, c.owners, c.tier
  FROM entitlements e
  LEFT JOIN access_requests r ON r.tenant_id = e.tenant_id AND r.id = e.access_request_id
  LEFT JOIN actors a ON a.tenant_id = e.tenant_id AND a.id = e.actor_id
  LEFT JOIN capabilities c ON c.tenant_id = e.tenant_id AND c.name = e.capability`;

export const entitlementFacts = (r: EntitlementRow): EntitlementFacts => ({
  id: r.id,
  holderId: r.actor_id,
  capability: r.capability,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
});

/** The holder's manager and the capability's owners: they oversee the entitlement. */
export const overseers = (r: EntitlementRow): string[] => [
  ...(r.manager_id !== null ? [r.manager_id] : []),
  ...(r.owners === null ? [] : (JSON.parse(r.owners) as string[])),
];

export function toEntitlementRecord(r: EntitlementRow, now: Date): EntitlementRecord {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    actorId: r.actor_id,
    capability: r.capability,
    accessRequestId: r.access_request_id,
    grantedBy: r.granted_by,
    status: entitlementStatus({ expiresAt: r.expires_at, revokedAt: r.revoked_at }, now),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
    revokedBy: r.revoked_by,
  };
}

/** An entitlement as its revocation is judged. */
export const toStoredEntitlement = (r: EntitlementRow): StoredEntitlement => ({
  ...entitlementFacts(r),
  accessRequestId: r.access_request_id,
  tier: r.tier === null ? null : Number(r.tier),
  overseers: overseers(r),
});
