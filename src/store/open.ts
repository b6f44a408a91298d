import { SvcError } from '../core/errors.js';
import type { Store } from './ports.js';
import { isPostgresUrl, parsePgUrl, redactUrl } from './postgres/connection-url.js';
import type { LockWait } from './sqlite/write-lock.js';
import type { CommitObserver } from './commit-observer.js';
import type { RecordedDecisions } from './replay-ports.js';

export interface OpenStoreOptions {
  /** What decisions are timed by; tests pass their own. */
  clock?: () => Date;
  /** SQLite: how a connection waits for the write lock (see sqlite/write-lock.ts). */
  lockWait?: LockWait;
  /** SQLite: checkpoint the WAL on a worker thread (long-running servers). */
  checkpointer?: boolean;
  /**
   * SQLite: true while the server answers at most one request; a lone decision's fsync may
   * then run on the event loop instead of the thread pool (sqlite/commit-queue.ts).
   */
  quiet?: () => boolean;
  /** SQLite: told of each group commit's size and fsync time (metrics). */
  commits?: CommitObserver;
  /** PostgreSQL: connections in the pool (default 10). */
  poolSize?: number;
  /** PostgreSQL: shown in pg_stat_activity. */
  applicationName?: string;
  /** PostgreSQL: this daemon's replica id (`--replica-id`); default `$SVC_REPLICA_ID`, else the host name. */
  replicaId?: string;
}

/**
 * Where the store is, from `--store` or `$SVC_STORE`: a `postgres://` or `postgresql://`
 * URL (several replicas share one database), or `sqlite` (the default) for the data dir's
 * own database at `sqliteFile`. Anything else is refused, naming the flag.
 */
export function resolveStoreSpec(choice: string | undefined, sqliteFile: string): string {
  if (choice === undefined || choice === '' || choice === 'sqlite') return sqliteFile;
  if (isPostgresUrl(choice)) {
    // throws a usage error naming the store and what was wrong (hosts, ports, svc's settings)
    parsePgUrl(choice);
    return choice;
  }
  throw new SvcError(
    'usage',
    `--store: expected a postgres:// or postgresql:// URL, or sqlite; got ${JSON.stringify(redactUrl(choice))}`,
    { field: 'store', remedy: 'pass --store postgresql://user@host:5432/db, or leave it out for SQLite' },
  );
}

/** Open the store `spec` names (a SQLite file path or a PostgreSQL URL); the caller closes it. */
export async function openStore(spec: string, opts: OpenStoreOptions = {}): Promise<Store> {
  if (isPostgresUrl(spec)) {
    // Loaded only when asked for, so SQLite deployments never load the driver.
    const { PgStore } = await import('./postgres/store.js');
    return PgStore.open(spec, {
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.poolSize !== undefined ? { poolSize: opts.poolSize } : {}),
      ...(opts.applicationName !== undefined ? { applicationName: opts.applicationName } : {}),
      ...(opts.replicaId !== undefined ? { replicaId: opts.replicaId } : {}),
    });
  }
  // Also on demand: commands that only talk to the daemon never open a store, and the SQLite
  // adapter's module graph is a tenth of a second of every command's start-up.
  const { SqliteStore } = await import('./sqlite/store.js');
  return SqliteStore.open(spec, {
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.lockWait ? { lockWait: opts.lockWait } : {}),
    ...(opts.checkpointer ? { checkpointer: true } : {}),
    ...(opts.quiet ? { quiet: opts.quiet } : {}),
    ...(opts.commits ? { commits: opts.commits } : {}),
  });
}

/**
 * The recorded decisions of the store `spec` names (a SQLite file, a backup's copy, or a
 * PostgreSQL URL), opened to read only: nothing is written, not even a migration.
 */
export async function openRecordedDecisions(spec: string): Promise<RecordedDecisions> {
  if (isPostgresUrl(spec)) {
    const { PgDb } = await import('./postgres/database.js');
    const { PgRecordedDecisions } = await import('./postgres/policy-inputs.js');
    return new PgRecordedDecisions(
      await PgDb.connect(spec, { poolSize: 2, applicationName: 'svc policy replay' }),
    );
  }
  const { SqliteRecordedDecisions } = await import('./sqlite/policy-inputs.js');
  return new SqliteRecordedDecisions(spec);
}
