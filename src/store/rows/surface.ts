import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import type { SurfaceState } from '../integration-ports.js';

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

/** The surface's stored state, or (never changed yet) the credential its document names. */
export function currentSurface(
  row: SurfaceRow | undefined,
  key: { tenantId: string; surfaceId: string; documentRef: string; actor: Actor; at: string },
): SurfaceState {
  return row
    ? toSurfaceState(row)
    : {
        tenantId: key.tenantId,
        surfaceId: key.surfaceId,
        credentialRef: key.documentRef,
        retiredRefs: [],
        status: 'active',
        rotatedAt: null,
        revokedAt: null,
        updatedBy: key.actor.id,
        updatedAt: key.at,
      };
}

/** The fields of an integration operation's journal record. */
export type SurfaceOpFields = Record<string, unknown> & { action: string; outcome: string; reason: string };

/** A rotation to `next`, refused when it is the current or a retired reference. */
export function rotation(
  before: SurfaceState,
  next: string,
  actor: Actor,
  at: string,
): { state: SurfaceState; fields: SurfaceOpFields } {
  const surfaceId = before.surfaceId;
  if (before.credentialRef === next) {
    throw new SvcError('conflict', `surface ${surfaceId} already uses that credential reference`, {
      code: 'credential_in_use',
    });
  }
  // A retired credential may be compromised: a surface never goes back to one.
  if (before.retiredRefs.includes(next)) {
    throw new SvcError('conflict', `surface ${surfaceId} retired that credential reference`, {
      code: 'credential_retired',
      remedy: 'rotate to a new reference, such as a new secret (`svc secret set`)',
    });
  }
  const state: SurfaceState = {
    ...before,
    credentialRef: next,
    retiredRefs: [...before.retiredRefs, before.credentialRef],
    status: 'active',
    rotatedAt: at,
    updatedBy: actor.id,
    updatedAt: at,
  };
  const reason =
    before.status === 'revoked'
      ? `surface ${surfaceId} moved to a new credential and is active again; the old credential is retired`
      : `surface ${surfaceId} moved to a new credential; the old credential is retired`;
  return {
    state,
    fields: {
      action: 'rotate',
      outcome: 'rotated',
      reason,
      credential_ref: next,
      previous_ref: before.credentialRef,
    },
  };
}

/** A revocation, refused when the surface is already revoked. */
export function revocation(
  before: SurfaceState,
  actor: Actor,
  at: string,
): { state: SurfaceState; fields: SurfaceOpFields } {
  if (before.status === 'revoked') {
    throw new SvcError(
      'conflict',
      `surface ${before.surfaceId} is already revoked (at ${before.revokedAt})`,
      {
        code: 'surface_revoked',
        remedy: 'rotate it to a new credential reference to use it again',
      },
    );
  }
  return {
    state: { ...before, status: 'revoked', revokedAt: at, updatedBy: actor.id, updatedAt: at },
    fields: {
      action: 'revoke',
      outcome: 'revoked',
      reason: `surface ${before.surfaceId} is withdrawn: new operations on it are refused. This records the daemon's own revocation, not the vendor's`,
      credential_ref: before.credentialRef,
    },
  };
}
