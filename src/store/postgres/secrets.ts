import type { SecretRepo, StoredSecret } from '../integration-ports.js';
import { toStoredSecret, type SecretRow } from '../rows/secret.js';
import { pgStoreError, type PgDb } from './database.js';

/** Sealed secret bytes only: the key that opens them is never in the database. */
export class PgSecrets implements SecretRepo {
  constructor(private readonly db: PgDb) {}

  async put(
    tenantId: string,
    name: string,
    s: { keyId: string; sealed: Uint8Array },
    at: string,
  ): Promise<'created' | 'updated'> {
    try {
      // One statement decides created or updated, whichever replica wins the row.
      const [r] = await this.db.query<{ inserted: boolean }>(
        `INSERT INTO secrets (tenant_id, name, key_id, sealed, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
         ON CONFLICT (tenant_id, name) DO UPDATE SET key_id = excluded.key_id, sealed = excluded.sealed,
           updated_at = excluded.updated_at
         RETURNING (xmax = 0) AS inserted`,
        [tenantId, name, s.keyId, Buffer.from(s.sealed), at],
      );
      return r?.inserted ? 'created' : 'updated';
    } catch (err) {
      throw pgStoreError(err, `secret ${name} of tenant ${tenantId}`);
    }
  }

  async get(tenantId: string, name: string): Promise<{ keyId: string; sealed: Uint8Array } | undefined> {
    const [r] = await this.db.query<SecretRow>('SELECT * FROM secrets WHERE tenant_id = $1 AND name = $2', [
      tenantId,
      name,
    ]);
    return r && { keyId: r.key_id, sealed: r.sealed };
  }

  async list(tenantId: string): Promise<StoredSecret[]> {
    const rows = await this.db.query<SecretRow>(
      'SELECT * FROM secrets WHERE tenant_id = $1 ORDER BY name COLLATE "C"',
      [tenantId],
    );
    return rows.map(toStoredSecret);
  }

  async delete(tenantId: string, name: string): Promise<boolean> {
    try {
      const rows = await this.db.query('DELETE FROM secrets WHERE tenant_id = $1 AND name = $2 RETURNING 1', [
        tenantId,
        name,
      ]);
      return rows.length === 1;
    } catch (err) {
      throw pgStoreError(err, `secret ${name} of tenant ${tenantId}`);
    }
  }
}
