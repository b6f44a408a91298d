import { keyRotation, type KeyRotationOps } from '../../core/signing-key.js';
import { runSync } from '../../core/use-case.js';
import type { NewSigningKey, SigningKeyRecord, SigningKeyRepo } from '../ports.js';
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

function activeRow(db: Db, tenantId: string): KeyRow | undefined {
  return prep(db, `SELECT * FROM signing_keys WHERE tenant_id = ? AND status = 'active'`).get(tenantId) as
    KeyRow | undefined;
}

/** What core/signing-key.ts asks for, answered at once on the caller's transaction. */
export function keyRotationOps(db: Db): KeyRotationOps {
  return {
    activeKey: (tenantId) => activeRow(db, tenantId)?.key_id,
    retireKey: (tenantId, keyId, at) =>
      prep(
        db,
        `UPDATE signing_keys SET status = 'retired', retired_at = ?
         WHERE tenant_id = ? AND key_id = ? AND status = 'active'`,
      ).run(at, tenantId, keyId).changes,
    insertKey: (key) => insertKey(db, key),
  };
}

export class SqliteSigningKeys implements SigningKeyRepo {
  constructor(private readonly db: Db) {}

  async active(tenantId: string): Promise<SigningKeyRecord | undefined> {
    const r = activeRow(this.db, tenantId);
    return r && toKey(r);
  }

  async list(tenantId: string): Promise<SigningKeyRecord[]> {
    const rows = prep(
      this.db,
      'SELECT * FROM signing_keys WHERE tenant_id = ? ORDER BY created_at, key_id',
    ).all(tenantId) as KeyRow[];
    return rows.map(toKey);
  }

  async rotate(next: NewSigningKey): Promise<SigningKeyRecord> {
    try {
      return await writeTransaction(
        this.db,
        this.db.transaction(() => runSync(keyRotation(next), keyRotationOps(this.db))),
      );
    } catch (err) {
      throw storeError(err, `signing key ${next.keyId}`);
    }
  }
}
