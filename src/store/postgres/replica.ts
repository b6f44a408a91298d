import { hostname } from 'node:os';
import type pg from 'pg';
import { SvcError } from '../../core/errors.js';
import { isReplicaId, REPLICA_ID_EXPECTED } from '../../core/replica-id.js';
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

export function replicaOwner(replicaId?: string): ReplicaOwner {
  const id = replicaId ?? process.env.SVC_REPLICA_ID ?? hostname();
  if (!isReplicaId(id)) {
    throw new SvcError(
      'usage',
      `the replica id must be ${REPLICA_ID_EXPECTED}; got ${JSON.stringify(id.slice(0, 140))}`,
      { field: 'SVC_REPLICA_ID' },
    );
  }
  return { replicaId: id, pid: process.pid };
}

/** A replica id given to a command (`svc store replicas release ID`): refused naming the argument. */
export function checkReplicaIdArg(id: string): void {
  if (!isReplicaId(id)) {
    throw new SvcError(
      'usage',
      `replica id: expected ${REPLICA_ID_EXPECTED}; got ${JSON.stringify(id.slice(0, 140))}`,
      {
        field: 'replica_id',
      },
    );
  }
}

/** `svc store replicas release` of a replica whose claim a daemon holds: it is alive. */
export function replicaAlive(replicaId: string): SvcError {
  return new SvcError(
    'conflict',
    `replica ${replicaId} is alive: a daemon on this database holds its replica claim (or another release of it is running); nothing was released`,
    {
      remedy:
        'release only a replica gone for good; a replica that stops and starts again under its id recovers its own calls. `svc store replicas` shows which replicas hold their claim',
    },
  );
}

/** A heartbeat before start-up recovery took the replica's claim. */
export function notClaimedYet(replicaId: string): SvcError {
  return new SvcError('unavailable', `replica ${replicaId} does not hold its replica id yet`);
}

/** The advisory lock key of the replica id in `$1` (store/postgres/replicas.ts finds it in pg_locks). */
export const REPLICA_LOCK_KEY = "hashtextextended('svc:replica:' || $1, 0)";

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
        `SELECT pg_try_advisory_lock(${REPLICA_LOCK_KEY}) AS ok`,
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

  /**
   * A statement on the claim's own connection, off the decision pool: it succeeds only while
   * this session, and with it the claim, is alive (the heartbeat rides on it).
   */
  async query<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> {
    return (await this.client.query<R>(sql, params)).rows;
  }

  /** Give the id back now (the store is closing): unlocked first, so a successor can take it at once. */
  async release(): Promise<void> {
    try {
      await this.client.query(`SELECT pg_advisory_unlock(${REPLICA_LOCK_KEY})`, [this.replicaId]);
      this.client.release();
    } catch (err) {
      // Destroying the connection ends the session, and with it the lock.
      this.client.release(err as Error);
    }
  }
}
