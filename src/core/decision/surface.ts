import type { Capability } from '../capability.js';
import type { DecisionRequest } from './request.js';
import type { PendingExecution } from './sealed.js';

/** A surface's stored state: undefined when it was never rotated or revoked. */
export type SurfaceState = { credentialRef: string; status: 'active' | 'revoked' } | undefined;

/**
 * Brokered custody, step 7: whether the capability's surface takes the operation, judged
 * inside the decision's transaction from the surface's stored state. `credentialRef` is the
 * reference the execution will use.
 */
export type SurfaceCheck = (q: {
  tenantId: string;
  surfaceId: string;
  operation: string;
  state: SurfaceState;
}) => { ok: true; credentialRef: string } | { ok: false; problem: string };

/** Where a brokered execution will go, once the decision allows it. */
export type BrokeredTarget = Omit<PendingExecution, 'executionId'>;

/** Only a brokered capability on the brokered route has a surface to judge: which one, if any. */
export function surfaceToJudge(
  req: DecisionRequest,
  cap: Capability | undefined,
): { surfaceId: string; operation: string } | undefined {
  if (req.route !== 'brokered' || cap?.custody !== 'brokered' || !cap.surfaceId || !cap.operation) {
    return undefined;
  }
  return { surfaceId: cap.surfaceId, operation: cap.operation };
}

/**
 * Step 7's verdict. `state` is read by the adapter for `surfaceToJudge`'s surface (in the
 * decision's transaction); nothing to judge is fine with no target.
 */
export function judgeSurface(
  tenantId: string,
  needed: { surfaceId: string; operation: string } | undefined,
  check: SurfaceCheck | undefined,
  state: SurfaceState,
): { ok: true; target?: BrokeredTarget } | { ok: false; problem: string } {
  if (!needed) return { ok: true };
  if (!check)
    return { ok: false, problem: 'no integration-operations document is configured on this daemon' };
  const r = check({ tenantId, surfaceId: needed.surfaceId, operation: needed.operation, state });
  if (!r.ok) return r;
  return {
    ok: true,
    target: { surfaceId: needed.surfaceId, operation: needed.operation, credentialRef: r.credentialRef },
  };
}
