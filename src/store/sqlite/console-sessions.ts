import type { ConsoleSession, ConsoleSessionRepo } from '../console-ports.js';
import { toSession, type SessionRow } from '../rows/console-session.js';
import { prep, storeError, type Db } from './database.js';
import { writeTransaction } from './write-lock.js';

/**
 * Console sessions. Every write goes through `writeTransaction`, as every other repository's:
 * the console's connection never sleeps on the write lock (write-lock.ts), so a bare
 * statement run while the daemon commits was refused as busy at once, a 500 on sign-in or
 * sign-out; now it waits on timers and, past the console's deadline, is a coded 503.
 */
export class SqliteConsoleSessions implements ConsoleSessionRepo {
  constructor(private readonly db: Db) {}

  async create(idHash: Uint8Array, s: ConsoleSession): Promise<void> {
    try {
      await writeTransaction(this.db, () =>
        prep(
          this.db,
          `INSERT INTO console_sessions (id_hash, tenant_id, actor_id, token_id, created_at, last_seen_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        ).run(idHash, s.tenantId, s.actorId, s.tokenId, s.createdAt, s.lastSeenAt, s.expiresAt),
      );
    } catch (err) {
      throw storeError(err, 'the console session');
    }
  }

  async find(idHash: Uint8Array): Promise<ConsoleSession | undefined> {
    const r = prep(this.db, 'SELECT * FROM console_sessions WHERE id_hash = ?').get(idHash) as
      SessionRow | undefined;
    return r && toSession(r);
  }

  async touch(idHash: Uint8Array, at: string): Promise<void> {
    await writeTransaction(this.db, () =>
      prep(this.db, 'UPDATE console_sessions SET last_seen_at = ? WHERE id_hash = ?').run(at, idHash),
    );
  }

  async delete(idHash: Uint8Array): Promise<void> {
    await writeTransaction(this.db, () =>
      prep(this.db, 'DELETE FROM console_sessions WHERE id_hash = ?').run(idHash),
    );
  }

  async purge(now: string): Promise<number> {
    return writeTransaction(
      this.db,
      () => prep(this.db, 'DELETE FROM console_sessions WHERE expires_at <= ?').run(now).changes,
    );
  }
}
