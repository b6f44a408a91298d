import type { z } from 'zod';
import type { ConnectionCheckResponse, SurfaceChangeResponse, SurfacesResponse } from '../api/brokered.js';

/** The daemon's answers, as the `svc integration-ops` commands return them under --json. */
export type SurfacesResult = z.output<typeof SurfacesResponse>;
export type CheckResult = z.output<typeof ConnectionCheckResponse>;
export type SurfaceChangeResult = z.output<typeof SurfaceChangeResponse>;

export function describeChange(verb: string, r: SurfaceChangeResult): string {
  return `Surface ${r.surface_id} ${verb}: now ${r.status}. ${r.note}.`;
}
