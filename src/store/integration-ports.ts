import type { Actor } from '../core/actor.js';
import type { ExecutionOutcome } from '../core/records/execution-record.js';
import type { SealedReceipt } from './decision-ports.js';
import type { ConnectionCheck, SurfaceChange, SurfaceState } from '../core/surface-change.js';

// Surface changes are use cases of core (core/surface-change.ts): their types live there.
export type { SurfaceChange, SurfaceState } from '../core/surface-change.js';

export interface SurfaceRepo {
  get(tenantId: string, surfaceId: string): Promise<SurfaceState | undefined>;
  list(tenantId: string): Promise<SurfaceState[]>;
  /** Move to `next`, retire the current reference and reactivate, journaled in one transaction. */
  rotate(
    tenantId: string,
    surfaceId: string,
    o: { documentRef: string; next: string; actor: Actor },
  ): Promise<SurfaceChange>;
  /** Withdraw the surface: decisions read the state in their own transaction, so it holds at once. */
  revoke(
    tenantId: string,
    surfaceId: string,
    o: { documentRef: string; actor: Actor },
  ): Promise<SurfaceChange>;
  /** Journal what a connection check answered. */
  journalCheck(
    tenantId: string,
    surfaceId: string,
    actor: Actor,
    check: ConnectionCheck,
  ): Promise<SealedReceipt>;
}

/** What became of a brokered call, as the connector saw it. */
export type { ExecutionOutcome } from '../core/records/execution-record.js';

export interface ExecutionStore {
  /**
   * Record the provider's outcome of a pending execution, with its journal record. Also
   * accepted after start-up recovery marked it unknown: the later answer is the better one.
   */
  finish(
    tenantId: string,
    executionId: string,
    o: ExecutionOutcome & { sentDigest: string | null },
  ): Promise<SealedReceipt>;
  /**
   * Start-up: every execution still pending whose daemon process is gone was interrupted
   * mid-call. Each becomes outcome unknown with its journal record; none is ever sent again.
   * Calls another live daemon on the same store holds open are left to it. Returns how many.
   */
  markInterrupted(): Promise<number>;
}

export interface StoredSecret {
  name: string;
  keyId: string;
  createdAt: string;
  updatedAt: string;
}

/** Sealed secrets (integration/secret-box.ts seals and opens them; the key is never here). */
export interface SecretRepo {
  put(
    tenantId: string,
    name: string,
    s: { keyId: string; sealed: Uint8Array },
    at: string,
  ): Promise<'created' | 'updated'>;
  get(tenantId: string, name: string): Promise<{ keyId: string; sealed: Uint8Array } | undefined>;
  list(tenantId: string): Promise<StoredSecret[]>;
  delete(tenantId: string, name: string): Promise<boolean>;
}
