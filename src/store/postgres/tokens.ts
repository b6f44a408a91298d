import type { TokenRecord, TokenRepo, TokenSummary } from '../ports.js';
import { toTokenRecord, toTokenSummary, tokenValues, type TokenRow } from '../rows/token.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { REVOCATION_CHANNEL, type RevocationFeed } from './revocation-feed.js';

/**
 * One token row, always, as in the SQLite adapter: the row when the id exists, else a decoy
 * of the same columns and lengths, so an unknown id does not answer faster than a known id
 * with a wrong secret. The decoy's all-zero hash matches no secret.
 */
const LOOKUP_SQL = `
  SELECT id, tenant_id, actor_id, secret_hash, label, created_at, expires_at, revoked_at, 1 AS found
    FROM tokens WHERE id = $1::text
  UNION ALL
  SELECT $1::text, 'decoy-tenant', 'decoy-actor', decode(repeat('00', 32), 'hex'), NULL,
         '1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00.000Z', NULL, 0
   WHERE NOT EXISTS (SELECT 1 FROM tokens WHERE id = $1::text)`;

export async function insertToken(tx: PgTx, t: TokenRecord): Promise<void> {
  await tx.query(
    `INSERT INTO tokens (id, tenant_id, actor_id, secret_hash, label, created_at, expires_at, revoked_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    tokenValues(t),
  );
}

export class PgTokens implements TokenRepo {
  /** `feed` hears this process's revocations at once; other replicas hear them by NOTIFY. */
  constructor(
    private readonly db: PgDb,
    private readonly feed: RevocationFeed,
  ) {}

  async insert(token: TokenRecord): Promise<void> {
    try {
      await this.db.tx((tx) => insertToken(tx, token));
    } catch (err) {
      throw pgStoreError(err, `token for actor ${token.actorId}`);
    } finally {
      // After the commit: a lookup that straddled it is not kept by a cache.
      this.feed.changed();
    }
  }

  /**
   * What an in-memory token cache compares on every request (the daemon's): it moves on a
   * revocation by any replica (LISTEN/NOTIFY), on a token write by this process, and on
   * every call while the feed is not listening. It costs one round trip on the listening
   * connection (the barrier that makes a revocation committed before the call heard by it),
   * which the daemon makes once per event-loop turn for all the checks waiting.
   * Nothing else can invalidate a verified token: tokens change only by revocation, and
   * actors are never changed or removed once added (no port writes them again).
   */
  async changeMark(): Promise<string> {
    return this.feed.heardMark();
  }

  async find(id: string): Promise<TokenRecord | undefined> {
    const [r] = await this.db.query<TokenRow & { found: number }>(LOOKUP_SQL, [id]);
    if (!r || r.found !== 1) return undefined;
    return toTokenRecord(r);
  }

  async list(tenantId: string, actorId?: string): Promise<TokenSummary[]> {
    const cols = 'id, tenant_id, actor_id, label, created_at, expires_at, revoked_at';
    const rows =
      actorId === undefined
        ? await this.db.query<Omit<TokenRow, 'secret_hash'>>(
            `SELECT ${cols} FROM tokens WHERE tenant_id = $1 ORDER BY created_at, id`,
            [tenantId],
          )
        : await this.db.query<Omit<TokenRow, 'secret_hash'>>(
            `SELECT ${cols} FROM tokens WHERE tenant_id = $1 AND actor_id = $2 ORDER BY created_at, id`,
            [tenantId, actorId],
          );
    return rows.map(toTokenSummary);
  }

  async revoke(tenantId: string, id: string, at: string): Promise<boolean> {
    const found = await this.db
      .tx(async (tx) => {
        const rows = await tx.query('SELECT 1 FROM tokens WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
        if (rows.length === 0) return false;
        await tx.query(
          'UPDATE tokens SET revoked_at = $1 WHERE tenant_id = $2 AND id = $3 AND revoked_at IS NULL',
          [at, tenantId, id],
        );
        // Delivered to every listening replica when, and only if, this transaction commits.
        await tx.query('SELECT pg_notify($1, $2)', [REVOCATION_CHANNEL, id]);
        return true;
      })
      .catch((err: unknown) => {
        throw pgStoreError(err, `token ${id}`);
      });
    this.feed.changed(found ? id : undefined);
    return found;
  }
}
