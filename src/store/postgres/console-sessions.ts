import type { ConsoleSession, ConsoleSessionRepo } from '../console-ports.js';
import { toSession, type SessionRow } from '../rows/console-session.js';
import { pgStoreError, type PgDb } from './database.js';

export class PgConsoleSessions implements ConsoleSessionRepo {
  constructor(private readonly db: PgDb) {}

  async create(idHash: Uint8Array, s: ConsoleSession): Promise<void> {
    try {
      await this.db.query(
        `INSERT INTO console_sessions (id_hash, tenant_id, actor_id, token_id, created_at, last_seen_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [Buffer.from(idHash), s.tenantId, s.actorId, s.tokenId, s.createdAt, s.lastSeenAt, s.expiresAt],
      );
    } catch (err) {
      throw pgStoreError(err, 'the console session');
    }
  }

  async find(idHash: Uint8Array): Promise<ConsoleSession | undefined> {
    const [r] = await this.db.query<SessionRow>('SELECT * FROM console_sessions WHERE id_hash = $1', [
      Buffer.from(idHash),
    ]);
    return r && toSession(r);
  }

  async touch(idHash: Uint8Array, at: string): Promise<void> {
    await this.db.query('UPDATE console_sessions SET last_seen_at = $1 WHERE id_hash = $2', [
      at,
      Buffer.from(idHash),
    ]);
  }

  async delete(idHash: Uint8Array): Promise<void> {
    await this.db.query('DELETE FROM console_sessions WHERE id_hash = $1', [Buffer.from(idHash)]);
  }

  async purge(now: string): Promise<number> {
    const rows = await this.db.query(
      'DELETE FROM console_sessions WHERE expires_at COLLATE "C" <= $1 RETURNING 1',
      [now],
    );
    return rows.length;
  }
}
