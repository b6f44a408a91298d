import type { SecretRepo, StoredSecret } from '../integration-ports.js';
import { toStoredSecret, type SecretRow } from '../rows/secret.js';
import { storeError, type Db } from './database.js';
import { writeTransaction } from './write-lock.js';

/** Sealed secret bytes only: the key that opens them lives in a file beside the database. */
export class SqliteSecrets implements SecretRepo {
  private readonly q;

  constructor(private readonly db: Db) {
    this.q = {
      get: db.prepare<[string, string], SecretRow>('SELECT * FROM secrets WHERE tenant_id = ? AND name = ?'),
      list: db.prepare<[string], SecretRow>('SELECT * FROM secrets WHERE tenant_id = ? ORDER BY name'),
      put: db.prepare(
        `INSERT INTO secrets (tenant_id, name, key_id, sealed, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (tenant_id, name) DO UPDATE SET key_id = excluded.key_id, sealed = excluded.sealed,
           updated_at = excluded.updated_at`,
      ),
      delete: db.prepare('DELETE FROM secrets WHERE tenant_id = ? AND name = ?'),
    };
  }

  async put(
    tenantId: string,
    name: string,
    s: { keyId: string; sealed: Uint8Array },
    at: string,
  ): Promise<'created' | 'updated'> {
    try {
      return await writeTransaction(this.db, () => {
        const existed = this.q.get.get(tenantId, name) !== undefined;
        this.q.put.run(tenantId, name, s.keyId, Buffer.from(s.sealed), at, at);
        return existed ? ('updated' as const) : ('created' as const);
      });
    } catch (err) {
      throw storeError(err, `secret ${name} of tenant ${tenantId}`);
    }
  }

  async get(tenantId: string, name: string): Promise<{ keyId: string; sealed: Uint8Array } | undefined> {
    const r = this.q.get.get(tenantId, name);
    return r && { keyId: r.key_id, sealed: r.sealed };
  }

  async list(tenantId: string): Promise<StoredSecret[]> {
    return this.q.list.all(tenantId).map(toStoredSecret);
  }

  async delete(tenantId: string, name: string): Promise<boolean> {
    return this.q.delete.run(tenantId, name).changes === 1;
  }
}
