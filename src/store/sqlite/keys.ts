import { SvcError } from '../../core/errors.js';
import type { SigningKeyRecord, SigningKeyRepo } from '../ports.js';
import { toKey, type KeyRow } from '../rows/signing-key.js';
import { prep, storeError, type Db } from './database.js';
import { writeTransaction } from './write-lock.js';

export function insertKey(db: Db, k: SigningKeyRecord): void {
  prep(
    db,
    `INSERT INTO signing_keys (tenant_id, key_id, public_key, algorithm, status, created_at, retired_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(k.tenantId, k.keyId, k.publicKey, k.algorithm, k.status, k.createdAt, k.retiredAt);
}

export class SqliteSigningKeys implements SigningKeyRepo {
  constructor(private readonly db: Db) {}

  async active(tenantId: string): Promise<SigningKeyRecord | undefined> {
    const r = prep(this.db, `SELECT * FROM signing_keys WHERE tenant_id = ? AND status = 'active'`).get(
      tenantId,
    ) as KeyRow | undefined;
    return r && toKey(r);
  }

  async list(tenantId: string): Promise<SigningKeyRecord[]> {
    const rows = prep(
      this.db,
      'SELECT * FROM signing_keys WHERE tenant_id = ? ORDER BY created_at, key_id',
    ).all(tenantId) as KeyRow[];
    return rows.map(toKey);
  }

  async rotate(next: Omit<SigningKeyRecord, 'status' | 'retiredAt'>): Promise<SigningKeyRecord> {
    const record: SigningKeyRecord = { ...next, status: 'active', retiredAt: null };
    const tx = this.db.transaction(() => {
      const retired = prep(
        this.db,
        `UPDATE signing_keys SET status = 'retired', retired_at = ? WHERE tenant_id = ? AND status = 'active'`,
      ).run(next.createdAt, next.tenantId);
      if (retired.changes !== 1)
        throw new SvcError('not_found', `tenant ${next.tenantId} has no active signing key`);
      insertKey(this.db, record);
    });
    try {
      await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, `signing key ${next.keyId}`);
    }
    return record;
  }
}
