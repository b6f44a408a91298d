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
import { storeError, type Db } from './database.js';
import { JournalWriter } from './journal.js';
import { writeTransaction } from './write-lock.js';

/** Integration-operations changes: each state change and its journal record in one transaction. */
export class SqliteSurfaces implements SurfaceRepo {
  private readonly journal: JournalWriter;
  private readonly q;

  constructor(
    private readonly db: Db,
    private readonly clock: () => Date,
  ) {
    this.journal = new JournalWriter(db);
    this.q = {
      get: db.prepare<[string, string], SurfaceRow>(
        'SELECT * FROM surface_states WHERE tenant_id = ? AND surface_id = ?',
      ),
      list: db.prepare<[string], SurfaceRow>(
        'SELECT * FROM surface_states WHERE tenant_id = ? ORDER BY surface_id',
      ),
      put: db.prepare(
        `INSERT INTO surface_states (tenant_id, surface_id, credential_ref, retired_refs, status, rotated_at, revoked_at,
           updated_by, updated_at)
         VALUES (@tenant_id, @surface_id, @credential_ref, @retired_refs, @status, @rotated_at, @revoked_at, @updated_by, @updated_at)
         ON CONFLICT (tenant_id, surface_id) DO UPDATE SET credential_ref = excluded.credential_ref,
           retired_refs = excluded.retired_refs, status = excluded.status, rotated_at = excluded.rotated_at,
           revoked_at = excluded.revoked_at, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
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
    return this.tx(() => {
      const at = this.clock().toISOString();
      const before = this.current(tenantId, surfaceId, o.documentRef, o.actor, at);
      const { state, fields } = rotation(before, o.next, o.actor, at);
      this.write(state);
      return { state, receipt: this.seal(tenantId, surfaceId, o.actor, at, fields) };
    });
  }

  async revoke(
    tenantId: string,
    surfaceId: string,
    o: { documentRef: string; actor: Actor },
  ): Promise<SurfaceChange> {
    return this.tx(() => {
      const at = this.clock().toISOString();
      const before = this.current(tenantId, surfaceId, o.documentRef, o.actor, at);
      const { state, fields } = revocation(before, o.actor, at);
      this.write(state);
      return { state, receipt: this.seal(tenantId, surfaceId, o.actor, at, fields) };
    });
  }

  async journalCheck(
    tenantId: string,
    surfaceId: string,
    actor: Actor,
    check: { credentialRef: string; answer: string; reason: string; detail: Record<string, unknown> },
  ): Promise<SealedReceipt> {
    return this.tx(() =>
      this.seal(tenantId, surfaceId, actor, this.clock().toISOString(), {
        action: 'connection_check',
        outcome: check.answer,
        reason: check.reason,
        effect: check.detail,
        credential_ref: check.credentialRef,
      }),
    );
  }

  private current(
    tenantId: string,
    surfaceId: string,
    documentRef: string,
    actor: Actor,
    at: string,
  ): SurfaceState {
    return currentSurface(this.q.get.get(tenantId, surfaceId), {
      tenantId,
      surfaceId,
      documentRef,
      actor,
      at,
    });
  }

  private write(s: SurfaceState): void {
    this.q.put.run({
      tenant_id: s.tenantId,
      surface_id: s.surfaceId,
      credential_ref: s.credentialRef,
      retired_refs: JSON.stringify(s.retiredRefs),
      status: s.status,
      rotated_at: s.rotatedAt,
      revoked_at: s.revokedAt,
      updated_by: s.updatedBy,
      updated_at: s.updatedAt,
    });
  }

  /**
   * The journal record of an integration operation. Credential references stay in the private
   * record (only its hash is published); a credential value is never given to this method.
   */
  private seal(
    tenantId: string,
    surfaceId: string,
    actor: Actor,
    at: string,
    fields: SurfaceOpFields,
  ): SealedReceipt {
    const record = integrationOpRecord({ tenantId, surfaceId, actorId: actor.id, at, fields });
    return receiptOf(record, this.journal.append(record, at));
  }

  private async tx<T>(fn: () => T): Promise<T> {
    try {
      return await writeTransaction(this.db, fn);
    } catch (err) {
      throw storeError(err, 'the surface');
    }
  }
}
