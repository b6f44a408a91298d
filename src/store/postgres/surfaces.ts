import type { Actor } from '../../core/actor.js';
import {
  journalCheck,
  revokeSurface,
  rotateSurface,
  type ConnectionCheck,
  type SurfaceOps,
} from '../../core/surface-change.js';
import { runAsync, type Async, type UseCase } from '../../core/use-case.js';
import type { SealedReceipt } from '../decision-ports.js';
import { surfaceValues, toSurfaceState, type SurfaceRow } from '../rows/surface.js';
import type { SurfaceChange, SurfaceRepo, SurfaceState } from '../integration-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { appendJournal } from './journal.js';
import { lockTenant } from './locks.js';
import { pgOutbox } from './outbox.js';

const SELECT_ONE = 'SELECT * FROM surface_states WHERE tenant_id = $1 AND surface_id = $2';

/** The reads and writes of integration operations in one tenant transaction (core/surface-change.ts decides). */
export function surfaceOpsIn(tx: PgTx): Async<SurfaceOps> {
  return {
    ...pgOutbox(tx),
    surface: async (tenantId, surfaceId) => {
      const [r] = await tx.query<SurfaceRow>(SELECT_ONE, [tenantId, surfaceId]);
      return r && toSurfaceState(r);
    },
    insertSurface: async (state) =>
      (
        await tx.query(
          `INSERT INTO surface_states (tenant_id, surface_id, credential_ref, retired_refs, status, rotated_at,
             revoked_at, updated_by, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (tenant_id, surface_id) DO NOTHING RETURNING 1`,
          surfaceValues(state),
        )
      ).length,
    updateSurface: async (state, was) =>
      (
        await tx.query(
          `UPDATE surface_states SET credential_ref = $3, retired_refs = $4, status = $5, rotated_at = $6,
             revoked_at = $7, updated_by = $8, updated_at = $9
           WHERE tenant_id = $1 AND surface_id = $2 AND credential_ref = $10 AND status = $11 AND updated_at = $12
           RETURNING 1`,
          [...surfaceValues(state), was.credentialRef, was.status, was.updatedAt],
        )
      ).length,
    append: (record, at) => appendJournal(tx, record, at),
  };
}

/**
 * Integration-operations changes: each state change and its journal record in one
 * transaction under the tenant's lock, so two replicas rotating one surface take turns and
 * the second sees the first's retired reference.
 */
export class PgSurfaces implements SurfaceRepo {
  constructor(
    private readonly db: PgDb,
    private readonly clock: () => Date,
  ) {}

  async get(tenantId: string, surfaceId: string): Promise<SurfaceState | undefined> {
    const [r] = await this.db.query<SurfaceRow>(SELECT_ONE, [tenantId, surfaceId]);
    return r && toSurfaceState(r);
  }

  async list(tenantId: string): Promise<SurfaceState[]> {
    const rows = await this.db.query<SurfaceRow>(
      'SELECT * FROM surface_states WHERE tenant_id = $1 ORDER BY surface_id',
      [tenantId],
    );
    return rows.map(toSurfaceState);
  }

  async rotate(
    tenantId: string,
    surfaceId: string,
    o: { documentRef: string; next: string; actor: Actor },
  ): Promise<SurfaceChange> {
    return this.run(tenantId, rotateSurface(tenantId, surfaceId, o, this.clock));
  }

  async revoke(
    tenantId: string,
    surfaceId: string,
    o: { documentRef: string; actor: Actor },
  ): Promise<SurfaceChange> {
    return this.run(tenantId, revokeSurface(tenantId, surfaceId, o, this.clock));
  }

  async journalCheck(
    tenantId: string,
    surfaceId: string,
    actor: Actor,
    check: ConnectionCheck,
  ): Promise<SealedReceipt> {
    return this.run(tenantId, journalCheck(tenantId, surfaceId, actor, check, this.clock));
  }

  private async run<T>(tenantId: string, useCase: UseCase<SurfaceOps, T>): Promise<T> {
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, tenantId);
        return runAsync(useCase, surfaceOpsIn(tx));
      });
    } catch (err) {
      throw pgStoreError(err, 'the surface');
    }
  }
}
