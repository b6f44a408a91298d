import { entitlementStatus, type EntitlementFacts } from '../../core/access.js';
import type { Actor } from '../../core/actor.js';
import type { AccessJournalInput } from '../../core/records/access-record.js';
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

/** The journal entry of revoking the entitlement `r` (and its approved request, if any). */
export const revocationEntry = (
  r: EntitlementRow,
  viewer: Actor,
  when: string,
  note: string | null,
): AccessJournalInput => ({
  tenantId: viewer.tenantId,
  step: 'entitlement_revoked',
  actorId: viewer.id,
  subjectId: r.access_request_id ?? r.id,
  capability: r.capability,
  tier: r.tier === null ? 0 : Number(r.tier),
  at: when,
  fields: {
    entitlement_id: r.id,
    access_request_id: r.access_request_id,
    holder_id: r.actor_id,
    expires_at: r.expires_at,
    note,
  },
});
