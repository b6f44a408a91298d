import { SvcError } from '../../core/errors.js';
import type { SigningKeyRecord, SigningKeyRepo } from '../ports.js';
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

  async rotate(next: Omit<SigningKeyRecord, 'status' | 'retiredAt'>): Promise<SigningKeyRecord> {
    const record: SigningKeyRecord = { ...next, status: 'active', retiredAt: null };
    try {
      await this.db.tx(async (tx) => {
        // The tenant lock orders a rotation with anchoring on every replica: no head is signed
        // with a key retired under it, and two rotations retire one key each in turn.
        await lockTenant(tx, next.tenantId);
        const retired = await tx.query(
          `UPDATE signing_keys SET status = 'retired', retired_at = $1
            WHERE tenant_id = $2 AND status = 'active' RETURNING key_id`,
          [next.createdAt, next.tenantId],
        );
        if (retired.length !== 1) {
          throw new SvcError('not_found', `tenant ${next.tenantId} has no active signing key`);
        }
        await insertKey(tx, record);
      });
    } catch (err) {
      throw pgStoreError(err, `signing key ${next.keyId}`);
    }
    return record;
  }
}
