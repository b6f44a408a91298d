import type { ConsoleSession, ConsoleSessionRepo } from '../console-ports.js';
import { pgStoreError, type PgDb } from './database.js';

interface SessionRow {
  tenant_id: string;
  actor_id: string;
  token_id: string | null;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

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
    return (
      r && {
        tenantId: r.tenant_id,
        actorId: r.actor_id,
        tokenId: r.token_id,
        createdAt: r.created_at,
        lastSeenAt: r.last_seen_at,
        expiresAt: r.expires_at,
      }
    );
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
