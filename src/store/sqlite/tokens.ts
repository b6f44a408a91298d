import type { TokenRecord, TokenRepo, TokenSummary } from '../ports.js';
import { toTokenRecord, toTokenSummary, tokenValues, type TokenRow } from '../rows/token.js';
import { prep, storeError, type Db } from './database.js';
import { writeTransaction } from './write-lock.js';

/**
 * One token row, always: the row itself when the id exists, else a decoy row of the same
 * columns and lengths. A miss then reads and decodes as much as a hit, so an unknown id
 * does not answer faster than a known id with a wrong secret (an id oracle otherwise).
 * The decoy's all-zero hash matches no secret.
 */
const LOOKUP_SQL = `
  SELECT id, tenant_id, actor_id, secret_hash, label, created_at, expires_at, revoked_at, 1 AS found
    FROM tokens WHERE id = @id
  UNION ALL
  SELECT @id, 'decoy-tenant', 'decoy-actor', zeroblob(32), NULL,
         '1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00.000Z', NULL, 0
   WHERE NOT EXISTS (SELECT 1 FROM tokens WHERE id = @id)`;

export function lookupToken(db: Db, id: string): { record: TokenRecord; found: boolean } {
  const r = prep(db, LOOKUP_SQL).get({ id }) as TokenRow & { found: 0 | 1 };
  return { record: toTokenRecord(r), found: r.found === 1 };
}

export function insertToken(db: Db, t: TokenRecord): void {
  prep(
    db,
    `INSERT INTO tokens (id, tenant_id, actor_id, secret_hash, label, created_at, expires_at, revoked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(...tokenValues(t));
}

export class SqliteTokens implements TokenRepo {
  /** writes through this connection, which its own data_version does not count */
  private writes = 0;

  constructor(private readonly db: Db) {}

  async insert(token: TokenRecord): Promise<void> {
    try {
      await writeTransaction(this.db, () => insertToken(this.db, token));
    } catch (err) {
      throw storeError(err, `token for actor ${token.actorId}`);
    } finally {
      // After the commit: a lookup between the two still sees the old state and is forgotten.
      this.writes++;
    }
  }

  /**
   * SQLite's data_version changes exactly when another connection (the CLI, another
   * process) committed to the file, and costs about a microsecond to read; writes made
   * through this connection are counted here. Any commit elsewhere moves the mark, not only
   * a revocation: rare enough on a daemon's file that precision is not worth a trigger.
   */
  async changeMark(): Promise<string> {
    return `${prep(this.db, 'PRAGMA data_version').pluck().get() as number}.${this.writes}`;
  }

  async find(id: string): Promise<TokenRecord | undefined> {
    const { record, found } = lookupToken(this.db, id);
    return found ? record : undefined;
  }

  async list(tenantId: string, actorId?: string): Promise<TokenSummary[]> {
    const cols = 'id, tenant_id, actor_id, label, created_at, expires_at, revoked_at';
    const rows = (
      actorId === undefined
        ? prep(this.db, `SELECT ${cols} FROM tokens WHERE tenant_id = ? ORDER BY created_at, id`).all(
            tenantId,
          )
        : prep(
            this.db,
            `SELECT ${cols} FROM tokens WHERE tenant_id = ? AND actor_id = ? ORDER BY created_at, id`,
          ).all(tenantId, actorId)
    ) as Omit<TokenRow, 'secret_hash'>[];
    return rows.map(toTokenSummary);
  }

  async revoke(tenantId: string, id: string, at: string): Promise<boolean> {
    try {
      return await this.revokeRow(tenantId, id, at);
    } finally {
      this.writes++;
    }
  }

  private revokeRow(tenantId: string, id: string, at: string): Promise<boolean> {
    return writeTransaction(this.db, () => {
      const found = prep(this.db, 'SELECT 1 FROM tokens WHERE tenant_id = ? AND id = ?').get(tenantId, id);
      if (!found) return false;
      prep(
        this.db,
        'UPDATE tokens SET revoked_at = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL',
      ).run(at, tenantId, id);
      return true;
    });
  }
}
