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
    const r = prep(this.db, 'SELECT * FROM tokens WHERE id = ?').get(id) as TokenRow | undefined;
    return r && { ...toSummary(r), secretHash: new Uint8Array(r.secret_hash) };
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
