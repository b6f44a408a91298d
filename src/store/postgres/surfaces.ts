import type { Actor } from '../../core/actor.js';
import { integrationOpRecord } from '../../core/records/integration-op-record.js';
import { receiptOf } from '../../core/records/sealed-receipt.js';
import type { SealedReceipt } from '../decision-ports.js';
import {
  currentSurface,
  revocation,
  rotation,
  toSurfaceState,
  type SurfaceOpFields,
  type SurfaceRow,
} from '../rows/surface.js';
import type { SurfaceChange, SurfaceRepo, SurfaceState } from '../integration-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { appendJournal } from './journal.js';
import { lockTenant } from './locks.js';

const SELECT_ONE = 'SELECT * FROM surface_states WHERE tenant_id = $1 AND surface_id = $2';

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
    return this.tx(tenantId, async (tx) => {
      const at = this.clock().toISOString();
      const before = await current(tx, tenantId, surfaceId, o.documentRef, o.actor, at);
      const { state, fields } = rotation(before, o.next, o.actor, at);
      await write(tx, state);
      return { state, receipt: await seal(tx, tenantId, surfaceId, o.actor, at, fields) };
    });
  }

  async revoke(
    tenantId: string,
    surfaceId: string,
    o: { documentRef: string; actor: Actor },
  ): Promise<SurfaceChange> {
    return this.tx(tenantId, async (tx) => {
      const at = this.clock().toISOString();
      const before = await current(tx, tenantId, surfaceId, o.documentRef, o.actor, at);
      const { state, fields } = revocation(before, o.actor, at);
      await write(tx, state);
      return { state, receipt: await seal(tx, tenantId, surfaceId, o.actor, at, fields) };
    });
  }

  async journalCheck(
    tenantId: string,
    surfaceId: string,
    actor: Actor,
    check: { credentialRef: string; answer: string; reason: string; detail: Record<string, unknown> },
  ): Promise<SealedReceipt> {
    return this.tx(tenantId, async (tx) =>
      seal(tx, tenantId, surfaceId, actor, this.clock().toISOString(), {
        action: 'connection_check',
        outcome: check.answer,
        reason: check.reason,
        effect: check.detail,
        credential_ref: check.credentialRef,
      }),
    );
  }

  private async tx<T>(tenantId: string, fn: (tx: PgTx) => Promise<T>): Promise<T> {
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, tenantId);
        return fn(tx);
      });
    } catch (err) {
      throw pgStoreError(err, 'the surface');
    }
  }
}

async function current(
  tx: PgTx,
  tenantId: string,
  surfaceId: string,
  documentRef: string,
  actor: Actor,
  at: string,
): Promise<SurfaceState> {
  const [r] = await tx.query<SurfaceRow>(SELECT_ONE, [tenantId, surfaceId]);
  return currentSurface(r, { tenantId, surfaceId, documentRef, actor, at });
}

async function write(tx: PgTx, s: SurfaceState): Promise<void> {
  await tx.query(
    `INSERT INTO surface_states (tenant_id, surface_id, credential_ref, retired_refs, status, rotated_at, revoked_at,
       updated_by, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (tenant_id, surface_id) DO UPDATE SET credential_ref = excluded.credential_ref,
       retired_refs = excluded.retired_refs, status = excluded.status, rotated_at = excluded.rotated_at,
       revoked_at = excluded.revoked_at, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
    [
      s.tenantId,
      s.surfaceId,
      s.credentialRef,
      JSON.stringify(s.retiredRefs),
      s.status,
      s.rotatedAt,
      s.revokedAt,
      s.updatedBy,
      s.updatedAt,
    ],
  );
}

/**
 * The journal record of an integration operation (built by core). Credential references stay
 * in the private record (only its hash is published); a credential value is never given here.
 */
async function seal(
  tx: PgTx,
  tenantId: string,
  surfaceId: string,
  actor: Actor,
  at: string,
  fields: SurfaceOpFields,
): Promise<SealedReceipt> {
  const record = integrationOpRecord({ tenantId, surfaceId, actorId: actor.id, at, fields });
  return receiptOf(record, await appendJournal(tx, record, at));
}
