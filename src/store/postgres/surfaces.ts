import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import { integrationOpRecord } from '../../core/records/integration-op-record.js';
import { receiptOf } from '../../core/records/sealed-receipt.js';
import type { SealedReceipt } from '../decision-ports.js';
import type { SurfaceChange, SurfaceRepo, SurfaceState } from '../integration-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { appendJournal } from './journal.js';
import { lockTenant } from './locks.js';

interface Row {
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

const toState = (r: Row): SurfaceState => ({
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
    const [r] = await this.db.query<Row>(SELECT_ONE, [tenantId, surfaceId]);
    return r && toState(r);
  }

  async list(tenantId: string): Promise<SurfaceState[]> {
    const rows = await this.db.query<Row>(
      'SELECT * FROM surface_states WHERE tenant_id = $1 ORDER BY surface_id',
      [tenantId],
    );
    return rows.map(toState);
  }

  async rotate(
    tenantId: string,
    surfaceId: string,
    o: { documentRef: string; next: string; actor: Actor },
  ): Promise<SurfaceChange> {
    return this.tx(tenantId, async (tx) => {
      const at = this.clock().toISOString();
      const before = await current(tx, tenantId, surfaceId, o.documentRef, o.actor, at);
      if (before.credentialRef === o.next) {
        throw new SvcError('conflict', `surface ${surfaceId} already uses that credential reference`, {
          code: 'credential_in_use',
        });
      }
      // A retired credential may be compromised: a surface never goes back to one.
      if (before.retiredRefs.includes(o.next)) {
        throw new SvcError('conflict', `surface ${surfaceId} retired that credential reference`, {
          code: 'credential_retired',
          remedy: 'rotate to a new reference, such as a new secret (`svc secret set`)',
        });
      }
      const state: SurfaceState = {
        ...before,
        credentialRef: o.next,
        retiredRefs: [...before.retiredRefs, before.credentialRef],
        status: 'active',
        rotatedAt: at,
        updatedBy: o.actor.id,
        updatedAt: at,
      };
      await write(tx, state);
      const reason =
        before.status === 'revoked'
          ? `surface ${surfaceId} moved to a new credential and is active again; the old credential is retired`
          : `surface ${surfaceId} moved to a new credential; the old credential is retired`;
      const receipt = await seal(tx, tenantId, surfaceId, o.actor, at, {
        action: 'rotate',
        outcome: 'rotated',
        reason,
        credential_ref: o.next,
        previous_ref: before.credentialRef,
      });
      return { state, receipt };
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
      if (before.status === 'revoked') {
        throw new SvcError('conflict', `surface ${surfaceId} is already revoked (at ${before.revokedAt})`, {
          code: 'surface_revoked',
          remedy: 'rotate it to a new credential reference to use it again',
        });
      }
      const state: SurfaceState = {
        ...before,
        status: 'revoked',
        revokedAt: at,
        updatedBy: o.actor.id,
        updatedAt: at,
      };
      await write(tx, state);
      const receipt = await seal(tx, tenantId, surfaceId, o.actor, at, {
        action: 'revoke',
        outcome: 'revoked',
        reason: `surface ${surfaceId} is withdrawn: new operations on it are refused. This records the daemon's own revocation, not the vendor's`,
        credential_ref: before.credentialRef,
      });
      return { state, receipt };
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
  const [r] = await tx.query<Row>(SELECT_ONE, [tenantId, surfaceId]);
  return r
    ? toState(r)
    : {
        tenantId,
        surfaceId,
        credentialRef: documentRef,
        retiredRefs: [],
        status: 'active',
        rotatedAt: null,
        revokedAt: null,
        updatedBy: actor.id,
        updatedAt: at,
      };
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
  fields: Record<string, unknown> & { action: string; outcome: string; reason: string },
): Promise<SealedReceipt> {
  const record = integrationOpRecord({ tenantId, surfaceId, actorId: actor.id, at, fields });
  return receiptOf(record, await appendJournal(tx, record, at));
}
