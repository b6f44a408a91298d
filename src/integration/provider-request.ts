import type { Capability } from '../core/capability.js';
import { providerUrl } from '../connectors/http.js';
import type { SurfaceSpec } from './document.js';
import { planRequest, type OperationSpec } from './request-plan.js';
import type { Surfaces } from './surfaces.js';

/** The operation a brokered capability executes through, or why there is none. */
export type OperationLookup =
  { ok: true; surface: SurfaceSpec; op: OperationSpec } | { ok: false; problem: string };

export const REGISTRATION_CHANGED =
  'the registration of this capability changed while the request was prepared; send it again';

/** One lookup for the broker that executes and for every view of what would execute. */
export function operationOf(
  surfaces: Surfaces,
  cap: Capability | undefined,
  tenantId: string,
): OperationLookup {
  if (!cap || cap.custody !== 'brokered' || cap.surfaceId === null || cap.operation === null)
    return { ok: false, problem: REGISTRATION_CHANGED };
  const surface = surfaces.find(tenantId, cap.surfaceId);
  if (!surface) return { ok: false, problem: surfaces.missing(cap.surfaceId) };
  const op = surface.operations.get(cap.operation);
  if (!op) return { ok: false, problem: `surface ${surface.id} has no operation ${cap.operation}` };
  return { ok: true, surface, op };
}

/**
 * The provider request a brokered capability's params make, as the connector would send it
 * now: the same `planRequest` the broker executes, never a second rendering. The credential
 * is added by the connector at execution and never shown; only the header it goes in is.
 */
export interface ProviderRequest {
  surface_id: string;
  operation: string;
  method: string;
  url: string;
  /** every header the operation sets; the credential's is not among them */
  headers: Record<string, string>;
  /** the name of the header the daemon adds the surface's credential to (its value is never shown) */
  credential_header: string;
  /** the exact body bytes as text, or null when the operation sends none */
  body: string | null;
}

export function providerRequestOf(
  surface: SurfaceSpec,
  op: OperationSpec,
  params: Record<string, unknown> | null,
): ProviderRequest {
  const plan = planRequest(op, params);
  return {
    surface_id: surface.id,
    operation: op.name,
    method: plan.method,
    url: providerUrl(surface.baseUrl, plan),
    headers: plan.headers,
    credential_header: surface.auth.type === 'header' ? surface.auth.name : 'authorization',
    body: plan.body,
  };
}

/**
 * What an approval of this capability would execute, or null: not brokered, not configured
 * here, or params that no longer fit the operation (a resume would then be refused).
 */
export function previewProviderRequest(
  surfaces: Surfaces,
  cap: Capability | undefined,
  tenantId: string,
  params: Record<string, unknown> | null,
): ProviderRequest | null {
  if (cap?.custody !== 'brokered') return null;
  const found = operationOf(surfaces, cap, tenantId);
  if (!found.ok) return null;
  try {
    return providerRequestOf(found.surface, found.op, params);
  } catch {
    return null;
  }
}
