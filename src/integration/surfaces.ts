import type { SurfaceState } from '../store/integration-ports.js';
import type { IntegrationDocument, SurfaceSpec } from './document.js';

/** The document's surfaces as each tenant sees them; empty when no document is configured. */
export class Surfaces {
  constructor(readonly document: IntegrationDocument | undefined) {}

  get configured(): boolean {
    return this.document !== undefined;
  }

  forTenant(tenantId: string): SurfaceSpec[] {
    return (this.document?.surfaces ?? []).filter((s) => s.tenants === null || s.tenants.includes(tenantId));
  }

  find(tenantId: string, surfaceId: string): SurfaceSpec | undefined {
    return this.forTenant(tenantId).find((s) => s.id === surfaceId);
  }

  /** Why a surface cannot be found, in words for a refusal. */
  missing(surfaceId: string): string {
    return this.configured
      ? `surface ${surfaceId} is not configured for this tenant`
      : 'no integration-operations document is configured on this daemon';
  }

  /** The reference in force: the last rotation's, else the document's. */
  currentRef(surface: SurfaceSpec, state: Pick<SurfaceState, 'credentialRef'> | undefined): string {
    return state?.credentialRef ?? surface.credentialRef;
  }

  /**
   * References a caller of the API may name for a surface: the tenant's own secrets, and
   * those the document lists for it. Never an arbitrary file or environment variable: that
   * would let an API caller make the daemon read, and send, whatever it can read.
   */
  refAllowed(surface: SurfaceSpec, ref: string): boolean {
    return ref.startsWith('secret:') || ref === surface.credentialRef || surface.credentialRefs.includes(ref);
  }
}
