import type { Actor } from '../../core/actor.js';
import {
  journalCheck,
  revokeSurface,
  rotateSurface,
  type ConnectionCheck,
  type SurfaceOps,
} from '../../core/surface-change.js';
import { runSync, type UseCase } from '../../core/use-case.js';
import type { SealedReceipt } from '../decision-ports.js';
import { surfaceValues, toSurfaceState, type SurfaceRow } from '../rows/surface.js';
import type { SurfaceChange, SurfaceRepo, SurfaceState } from '../integration-ports.js';
import { storeError, type Db } from './database.js';
import { JournalWriter } from './journal.js';
import { writeTransaction } from './write-lock.js';
import { sqliteOutbox } from './outbox.js';

/** The reads and writes of integration operations (core/surface-change.ts decides). */
export function surfaceOps(db: Db): SurfaceOps {
  const journal = new JournalWriter(db);
  const get = db.prepare<[string, string], SurfaceRow>(
    'SELECT * FROM surface_states WHERE tenant_id = ? AND surface_id = ?',
  );
  const insert = db.prepare(
    `INSERT INTO surface_states (tenant_id, surface_id, credential_ref, retired_refs, status, rotated_at, revoked_at,
       updated_by, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, surface_id) DO NOTHING`,
  );
  // The new state's columns, then the key and the state the change was decided on.
  const update = db.prepare(
    `UPDATE surface_states SET credential_ref = ?, retired_refs = ?, status = ?, rotated_at = ?, revoked_at = ?,
       updated_by = ?, updated_at = ?
     WHERE tenant_id = ? AND surface_id = ? AND credential_ref = ? AND status = ? AND updated_at = ?`,
  );
  return {
    ...sqliteOutbox(db),
    surface: (tenantId, surfaceId) => {
      const r = get.get(tenantId, surfaceId);
      return r && toSurfaceState(r);
    },
    insertSurface: (state) => insert.run(...surfaceValues(state)).changes,
    updateSurface: (state, was) => {
      const [tenantId, surfaceId, ...columns] = surfaceValues(state);
      return update.run(...columns, tenantId, surfaceId, was.credentialRef, was.status, was.updatedAt)
        .changes;
    },
    append: (record, at) => journal.append(record, at),
  };
}

/** Integration-operations changes: each state change and its journal record in one transaction. */
export class SqliteSurfaces implements SurfaceRepo {
  private readonly ops: SurfaceOps;
  private readonly q;

  constructor(
    private readonly db: Db,
    private readonly clock: () => Date,
  ) {
    this.ops = surfaceOps(db);
    this.q = {
      get: db.prepare<[string, string], SurfaceRow>(
        'SELECT * FROM surface_states WHERE tenant_id = ? AND surface_id = ?',
      ),
      list: db.prepare<[string], SurfaceRow>(
        'SELECT * FROM surface_states WHERE tenant_id = ? ORDER BY surface_id',
      ),
    };
  }

  async get(tenantId: string, surfaceId: string): Promise<SurfaceState | undefined> {
    const r = this.q.get.get(tenantId, surfaceId);
    return r && toSurfaceState(r);
  }

  async list(tenantId: string): Promise<SurfaceState[]> {
    return this.q.list.all(tenantId).map(toSurfaceState);
  }

  async rotate(
    tenantId: string,
    surfaceId: string,
    o: { documentRef: string; next: string; actor: Actor },
  ): Promise<SurfaceChange> {
    return this.run(rotateSurface(tenantId, surfaceId, o, this.clock));
  }

  async revoke(
    tenantId: string,
    surfaceId: string,
    o: { documentRef: string; actor: Actor },
  ): Promise<SurfaceChange> {
    return this.run(revokeSurface(tenantId, surfaceId, o, this.clock));
  }

  async journalCheck(
    tenantId: string,
    surfaceId: string,
    actor: Actor,
    check: ConnectionCheck,
  ): Promise<SealedReceipt> {
    return this.run(journalCheck(tenantId, surfaceId, actor, check, this.clock));
  }

  private async run<T>(useCase: UseCase<SurfaceOps, T>): Promise<T> {
    try {
      return await writeTransaction(this.db, () => runSync(useCase, this.ops));
    } catch (err) {
      throw storeError(err, 'the surface');
    }
  }
}
