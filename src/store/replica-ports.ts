/**
 * The daemon replicas a PostgreSQL database has seen (`svc store replicas`). PostgreSQL
 * only: on SQLite every method refuses, saying replicas need PostgreSQL.
 */
export interface ReplicaSeen {
  replicaId: string;
  /** null: known only as the owner of pending calls (it never beat: an older svc) */
  host: string | null;
  pid: number | null;
  version: string | null;
  startedAt: string | null;
  lastHeartbeat: string | null;
  /** milliseconds since the last heartbeat, by the database's clock */
  heartbeatAgeMs: number | null;
  /** it holds its replica claim now: a live daemon runs under this id */
  live: boolean;
  /** its brokered calls still in flight (pending) */
  pending: number;
}

/** What this daemon writes about itself on each beat. */
export interface ReplicaSelf {
  host: string;
  version: string;
  startedAt: string;
}

export interface ReleasedCall {
  tenantId: string;
  executionId: string;
  intentId: string;
  receiptId: string;
  sequence: number;
}

export interface ReplicaRelease {
  replicaId: string;
  /** each pending call sealed as outcome unknown, with its journal record */
  released: ReleasedCall[];
  /** its row in the replicas table was removed */
  forgotten: boolean;
}

export interface ReplicaRepo {
  /**
   * Record this daemon's replica (host, pid, version, start) and its heartbeat now, on the
   * connection that holds its replica claim: it fails when that claim is gone.
   */
  beat(self: ReplicaSelf): Promise<void>;
  /** Every replica seen, by id: heartbeat, claim, pending calls. */
  list(): Promise<ReplicaSeen[]>;
  /**
   * Release a replica gone for good: refused (conflict) while a daemon holds its claim; else
   * its pending calls are sealed as its own start-up would seal them (outcome unknown, never
   * sent again), each with its journal record marked with the release, and its row is
   * removed. Running it again releases nothing.
   */
  release(replicaId: string, by: { host: string; pid: number }): Promise<ReplicaRelease>;
}
