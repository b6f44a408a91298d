import { keyRotation, type KeyRotationOps } from '../../core/signing-key.js';
import { runAsync, type Async } from '../../core/use-case.js';
import type { NewSigningKey, SigningKeyRecord, SigningKeyRepo } from '../ports.js';
import { toKey, type KeyRow } from '../rows/signing-key.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant } from './locks.js';

export async function insertKey(tx: PgTx, k: SigningKeyRecord): Promise<void> {
  await tx.query(
    `INSERT INTO signing_keys (tenant_id, key_id, public_key, algorithm, status, created_at, retired_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [k.tenantId, k.keyId, k.publicKey, k.algorithm, k.status, k.createdAt, k.retiredAt],
  );
}

/** What core/signing-key.ts asks for, on the caller's transaction. */
export function keyRotationOpsIn(tx: PgTx): Async<KeyRotationOps> {
  return {
    activeKey: async (tenantId) =>
      (
        await tx.query<{ key_id: string }>(
          `SELECT key_id FROM signing_keys WHERE tenant_id = $1 AND status = 'active'`,
          [tenantId],
        )
      )[0]?.key_id,
    retireKey: async (tenantId, keyId, at) =>
      (
        await tx.query(
          `UPDATE signing_keys SET status = 'retired', retired_at = $1
           WHERE tenant_id = $2 AND key_id = $3 AND status = 'active' RETURNING 1`,
          [at, tenantId, keyId],
        )
      ).length,
    insertKey: (key) => insertKey(tx, key),
  };
}

export class PgSigningKeys implements SigningKeyRepo {
  constructor(private readonly db: PgDb) {}

  async active(tenantId: string): Promise<SigningKeyRecord | undefined> {
    const [r] = await this.db.query<KeyRow>(
      `SELECT * FROM signing_keys WHERE tenant_id = $1 AND status = 'active'`,
      [tenantId],
    );
    return r && toKey(r);
  }

  async list(tenantId: string): Promise<SigningKeyRecord[]> {
    const rows = await this.db.query<KeyRow>(
      'SELECT * FROM signing_keys WHERE tenant_id = $1 ORDER BY created_at, key_id',
      [tenantId],
    );
    return rows.map(toKey);
  }

  async rotate(next: NewSigningKey): Promise<SigningKeyRecord> {
    try {
      return await this.db.tx(async (tx) => {
        // The tenant lock orders a rotation with anchoring on every replica: no head is signed
        // with a key retired under it, and two rotations retire one key each in turn.
        await lockTenant(tx, next.tenantId);
        return runAsync(keyRotation(next), keyRotationOpsIn(tx));
      });
    } catch (err) {
      throw pgStoreError(err, `signing key ${next.keyId}`);
    }
  }
}
