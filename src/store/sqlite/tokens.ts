import type { TokenRecord, TokenRepo, TokenSummary } from '../ports.js';
import { prep, storeError, type Db } from './database.js';
import { writeTransaction } from './write-lock.js';

interface TokenRow {
  id: string;
  tenant_id: string;
  actor_id: string;
  secret_hash: Buffer;
  label: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

function toSummary(r: Omit<TokenRow, 'secret_hash'>): TokenSummary {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    actorId: r.actor_id,
    label: r.label,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
  };
}

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
  return { record: { ...toSummary(r), secretHash: new Uint8Array(r.secret_hash) }, found: r.found === 1 };
}

export function insertToken(db: Db, t: TokenRecord): void {
  prep(
    db,
    `INSERT INTO tokens (id, tenant_id, actor_id, secret_hash, label, created_at, expires_at, revoked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    t.id,
    t.tenantId,
    t.actorId,
    Buffer.from(t.secretHash),
    t.label,
    t.createdAt,
    t.expiresAt,
    t.revokedAt,
  );
}

export class SqliteTokens implements TokenRepo {
  constructor(private readonly db: Db) {}

  async insert(token: TokenRecord): Promise<void> {
    try {
      await writeTransaction(this.db, () => insertToken(this.db, token));
    } catch (err) {
      throw storeError(err, `token for actor ${token.actorId}`);
    }
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
    return rows.map(toSummary);
  }

  async revoke(tenantId: string, id: string, at: string): Promise<boolean> {
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
