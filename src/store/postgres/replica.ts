import { hostname } from 'node:os';
import type pg from 'pg';
import { SvcError } from '../../core/errors.js';
import type { PgDb } from './database.js';

/**
 * Which replica owns a brokered call. On SQLite every daemon shares one host, so a process
 * id tells a live owner from a dead one; replicas on PostgreSQL run on several hosts, where
 * a pid means nothing. Each replica therefore has a stable name, its replica id
 * (`SVC_REPLICA_ID`, else the host name), recorded on every execution it starts
 * (`owner_instance`). Start-up recovery judges only the rows of its own id: the calls its
 * previous life left open. A replica lost for good is recovered by starting any daemon once
 * under its id.
 */
export interface ReplicaOwner {
  replicaId: string;
  pid: number;
}

const REPLICA_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function replicaOwner(replicaId?: string): ReplicaOwner {
  const id = replicaId ?? process.env.SVC_REPLICA_ID ?? hostname();
  if (!REPLICA_ID.test(id) || id.startsWith('dmn_')) {
    throw new SvcError(
      'usage',
      `the replica id must be 1 to 128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit, and not starting with dmn_ (a SQLite daemon's mark); got ${JSON.stringify(id.slice(0, 140))}`,
      { field: 'SVC_REPLICA_ID' },
    );
  }
  return { replicaId: id, pid: process.pid };
}

/**
 * Hold the replica id for as long as this process lives: a session-level advisory lock on a
 * connection of its own. Two live daemons under one id would judge each other's open calls
 * as interrupted; the second is refused at start instead. The lock goes with the connection,
 * so a replica that crashed frees its id at once.
 */
export class ReplicaClaim {
  private constructor(
    private readonly client: pg.PoolClient,
    private readonly replicaId: string,
  ) {}

  static async take(db: PgDb, owner: ReplicaOwner): Promise<ReplicaClaim> {
    const client = await db.pool.connect();
    client.on('error', () => undefined);
    try {
      const { rows } = await client.query<{ ok: boolean }>(
        "SELECT pg_try_advisory_lock(hashtextextended('svc:replica:' || $1, 0)) AS ok",
        [owner.replicaId],
      );
      if (rows[0]?.ok !== true) {
        throw new SvcError(
          'conflict',
          `replica id ${owner.replicaId} is held by another live daemon on this database`,
          {
            remedy:
              'give each replica its own SVC_REPLICA_ID (a stable name, reused when that replica restarts)',
          },
        );
      }
      return new ReplicaClaim(client, owner.replicaId);
    } catch (err) {
      client.release();
      throw err;
    }
  }

  /** Give the id back now (the store is closing): unlocked first, so a successor can take it at once. */
  async release(): Promise<void> {
    try {
      await this.client.query("SELECT pg_advisory_unlock(hashtextextended('svc:replica:' || $1, 0))", [
        this.replicaId,
      ]);
      this.client.release();
    } catch (err) {
      // Destroying the connection ends the session, and with it the lock.
      this.client.release(err as Error);
    }
  }
}
