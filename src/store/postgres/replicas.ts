import { SvcError } from '../../core/errors.js';
import type {
  ReleasedCall,
  ReplicaRelease,
  ReplicaRepo,
  ReplicaSeen,
  ReplicaSelf,
} from '../replica-ports.js';
import type { PgDb } from './database.js';
import { sealPending, type PgExecutions } from './executions.js';
import {
  checkReplicaIdArg,
  notClaimedYet,
  ReplicaClaim,
  replicaAlive,
  REPLICA_LOCK_KEY,
  type ReplicaOwner,
} from './replica.js';

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', ${ISO})`;

/**
 * A replica holds its claim while a session of this database holds the advisory lock of its
 * id (replica.ts). pg_locks shows a bigint advisory key as two oids, high word in `classid`,
 * low word in `objid`, with `objsubid` 1; locks of other databases on the server are not ours.
 */
const HOLDS_CLAIM = `EXISTS (
  SELECT 1 FROM pg_locks l
  WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND ((l.classid::bigint << 32) | l.objid::bigint) = ${REPLICA_LOCK_KEY.replace('$1', 'r.id')})`;

interface Row {
  id: string;
  host: string | null;
  pid: string | null;
  version: string | null;
  started_at: string | null;
  last_heartbeat: string | null;
  age_ms: string | null;
  live: boolean;
  pending: string;
}

/** `svc store replicas`: the replicas this database has seen, their heartbeats and claims. */
export class PgReplicas implements ReplicaRepo {
  constructor(
    private readonly db: PgDb,
    private readonly clock: () => Date,
    /** this process's replica id and pid */
    private readonly owner: ReplicaOwner,
    /** holds this daemon's claim once start-up took it */
    private readonly executions: PgExecutions,
  ) {}

  async beat(self: ReplicaSelf): Promise<void> {
    const claim = this.executions.heldClaim;
    if (!claim) throw notClaimedYet(this.owner.replicaId);
    await claim.query(
      `INSERT INTO replicas (id, host, pid, version, started_at, last_heartbeat)
       VALUES ($1, $2, $3, $4, $5, clock_timestamp())
       ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid, version = EXCLUDED.version,
         started_at = EXCLUDED.started_at, last_heartbeat = EXCLUDED.last_heartbeat`,
      [this.owner.replicaId, self.host, this.owner.pid, self.version, self.startedAt],
    );
  }

  async list(): Promise<ReplicaSeen[]> {
    // Replicas that never beat (an older svc) are still named by the calls they left open.
    const rows = await this.db.query<Row>(
      `WITH seen AS (
         SELECT id, host, pid, version, started_at, last_heartbeat FROM replicas
         UNION ALL
         SELECT DISTINCT owner_instance, NULL::text, NULL::bigint, NULL::text, NULL::timestamptz, NULL::timestamptz FROM executions
         WHERE state = 'pending' AND owner_instance IS NOT NULL AND owner_instance NOT LIKE 'dmn\\_%'
           AND owner_instance NOT IN (SELECT id FROM replicas)
       )
       SELECT r.id, r.host, r.pid::text AS pid, r.version, ${iso('r.started_at')} AS started_at,
         ${iso('r.last_heartbeat')} AS last_heartbeat,
         floor(extract(epoch FROM clock_timestamp() - r.last_heartbeat) * 1000)::bigint::text AS age_ms,
         ${HOLDS_CLAIM} AS live,
         (SELECT count(*) FROM executions e WHERE e.state = 'pending' AND e.owner_instance = r.id)::text AS pending
       FROM seen r ORDER BY r.id`,
    );
    return rows.map((r) => ({
      replicaId: r.id,
      host: r.host,
      pid: r.pid === null ? null : Number(r.pid),
      version: r.version,
      startedAt: r.started_at,
      lastHeartbeat: r.last_heartbeat,
      heartbeatAgeMs: r.age_ms === null ? null : Math.max(0, Number(r.age_ms)),
      live: r.live,
      pending: Number(r.pending),
    }));
  }

  async release(replicaId: string, by: { host: string; pid: number }): Promise<ReplicaRelease> {
    checkReplicaIdArg(replicaId);
    // Taking the replica's own claim is the test of death, and it keeps the replica from
    // starting again (and a second release from running) until the seals are committed.
    let claim: ReplicaClaim;
    try {
      claim = await ReplicaClaim.take(this.db, { replicaId, pid: by.pid });
    } catch (err) {
      if (err instanceof SvcError && err.kind === 'conflict') throw replicaAlive(replicaId);
      throw err;
    }
    try {
      let forgotten = false;
      const sealed = await sealPending(
        this.db,
        this.clock,
        "state = 'pending' AND owner_instance = $1",
        [replicaId],
        { replica_id: replicaId, host: by.host, pid: by.pid },
        async (tx) => {
          forgotten =
            (await tx.query('DELETE FROM replicas WHERE id = $1 RETURNING 1', [replicaId])).length > 0;
        },
      );
      const released: ReleasedCall[] = sealed.map((s) => ({
        tenantId: s.tenantId,
        executionId: s.executionId,
        intentId: s.intentId,
        receiptId: s.receipt.receiptId,
        sequence: s.receipt.sequence,
      }));
      return { replicaId, released, forgotten };
    } finally {
      await claim.release();
    }
  }
}
