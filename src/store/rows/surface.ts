import type { SurfaceState } from '../../core/surface-change.js';

/** A surface_states row as both drivers return it. */
export interface SurfaceRow {
  tenant_id: string;
  surface_id: string;
  credential_ref: string;
  retired_refs: string;
  status: 'active' | 'revoked';
  rotated_at: string | null;
  revoked_at: string | null;
  updated_by: string;
  updated_at: string;
}

export const toSurfaceState = (r: SurfaceRow): SurfaceState => ({
  tenantId: r.tenant_id,
  surfaceId: r.surface_id,
  credentialRef: r.credential_ref,
  retiredRefs: JSON.parse(r.retired_refs) as string[],
  status: r.status,
  rotatedAt: r.rotated_at,
  revokedAt: r.revoked_at,
  updatedBy: r.updated_by,
  updatedAt: r.updated_at,
});

/** The values of a surface_states row, in the column order of both adapters' writes. */
export const surfaceValues = (s: SurfaceState): unknown[] => [
  s.tenantId,
  s.surfaceId,
  s.credentialRef,
  JSON.stringify(s.retiredRefs),
  s.status,
  s.rotatedAt,
  s.revokedAt,
  s.updatedBy,
  s.updatedAt,
];
