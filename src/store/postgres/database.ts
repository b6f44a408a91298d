import pg from 'pg';
import { SvcError } from '../../core/errors.js';
import { OutboxSignal } from '../outbox-signal.js';
import { parsePgUrl, redactSecrets, redactUrl, type PgHost } from './connection-url.js';
import { HostSelector } from './host-selector.js';

/** What a repository method runs inside `PgDb.tx`: queries on the transaction's one connection. */
export interface PgTx {
  query<R>(sql: string, params?: unknown[]): Promise<R[]>;
  /** the transaction wrote an outbox event: `PgDb.outbox` is told once it has committed */
  eventWritten?(): void;
}

export interface PgOptions {
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** Server-side limit per statement, ms (default 30 000). Waiting for a lock counts. */
  statementTimeoutMs?: number;
  /** Server-side limit on one wait for a lock, ms (default 10 000). */
  lockTimeoutMs?: number;
  /** How long to wait for a connection, ms (default 10 000). */
  connectTimeoutMs?: number;
  /** Shown in pg_stat_activity, so an operator can tell replicas apart. */
  applicationName?: string;
}

export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * One PostgreSQL database through a `pg.Pool`. BIGINT columns come back as strings (the
 * driver's default, kept on purpose: micros exceed 2^53): adapters convert them.
 * `query` runs on any pooled connection (autocommit); `tx` runs one READ COMMITTED
 * transaction on one connection and rolls back when `fn` throws.
 *
 * The URL may list several hosts (libpq's form): connections go to the one that accepts
 * writes, found and found again after a failover by host-selector.ts.
 */
export class PgDb {
  readonly pool: pg.Pool;
  /** told after each commit of a transaction that wrote an outbox event */
  readonly outbox = new OutboxSignal();
  /** the session limits every connection is opened with (ms) */
  readonly limits: { statementTimeoutMs: number; lockTimeoutMs: number; idleInTransactionTimeoutMs: number };
  private readonly hosts: HostSelector;
  private closed = false;

  constructor(
    private readonly url: string,
    opts: PgOptions = {},
  ) {
    const parsed = parsePgUrl(url);
    const set = parsed.settings;
    const size = opts.poolSize ?? set.poolSize ?? DEFAULT_POOL_SIZE;
    if (!Number.isInteger(size) || size < 1 || size > 1000) {
      throw new SvcError('usage', `the pool size must be an integer from 1 to 1000, got ${String(size)}`, {
        field: 'poolSize',
      });
    }
    const statementTimeout =
      opts.statementTimeoutMs ?? set.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
    this.limits = {
      statementTimeoutMs: statementTimeout,
      lockTimeoutMs: opts.lockTimeoutMs ?? set.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
      // A transaction left open by a stuck client would hold tenant locks: the server ends it.
      idleInTransactionTimeoutMs: set.idleInTransactionTimeoutMs ?? Math.max(statementTimeout * 2, 60_000),
    };
    this.hosts = new HostSelector(parsed.hosts);
    const config: pg.PoolConfig & { onConnect?: (client: pg.ClientBase) => Promise<void> } = {
      Client: routedClient(this.hosts),
      max: size,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? set.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      statement_timeout: this.limits.statementTimeoutMs,
      lock_timeout: this.limits.lockTimeoutMs,
      idle_in_transaction_session_timeout: this.limits.idleInTransactionTimeoutMs,
      application_name: opts.applicationName ?? 'svc',
    };
    if (parsed.readWrite) config.onConnect = (client) => this.requireWritable(client);
    this.pool = new pg.Pool(config);
    // An idle pooled connection that the server drops (restart, failover) emits 'error' on the
    // pool; unhandled it would crash the daemon. The pool discards that client by itself.
    this.pool.on('error', () => undefined);
  }

  /**
   * Open a pool and prove the server answers, so a wrong URL fails at start, not on the
   * first request. With several hosts each is tried in turn before giving up.
   */
  static async connect(url: string, opts: PgOptions = {}): Promise<PgDb> {
    const db = new PgDb(url, opts);
    let last: unknown;
    for (let attempt = 0; attempt < db.hosts.hosts.length; attempt++) {
      let version: number;
      try {
        const { rows } = await db.pool.query<{ v: number }>(
          "SELECT current_setting('server_version_num')::int AS v",
        );
        version = rows[0]!.v;
      } catch (err) {
        last = err;
        if (!isStoreUnreachable(err) && !(err instanceof SvcError)) break;
        continue;
      }
      const old = tooOld(version);
      if (old) {
        await db.close();
        throw old;
      }
      return db;
    }
    await db.close();
    throw db.describe(last, `cannot connect to the database ${redactUrl(url)}`);
  }

  /** The single-host URL new connections go to now: for a connection of its own (LISTEN). */
  currentUrl(): string {
    return this.hosts.current().url;
  }

  /**
   * A new connection must accept writes (the URL listed several hosts or asked for
   * read-write): a standby, or a server whose sessions default to read-only, moves the choice
   * to the next host and this connection is refused, as libpq's target_session_attrs does.
   */
  private async requireWritable(client: pg.ClientBase): Promise<void> {
    const host = (client as pg.ClientBase & { svcHost?: PgHost }).svcHost;
    const { rows } = await client.query<{ standby: boolean; ro: string }>(
      "SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') AS ro",
    );
    if (rows[0]?.standby === false && rows[0].ro === 'off') return;
    if (host) this.hosts.failed(host);
    throw new SvcError(
      'unavailable',
      `the database host ${host ? `${host.host}:${host.port}` : ''} accepts no writes (a standby?); the next host is tried`,
      { remedy: 'retry with the same body (and effect key); GET /readyz reports when a primary answers' },
    );
  }

  /** The URL with its password hidden: the only form any message may show. */
  get redactedUrl(): string {
    return redactUrl(this.url);
  }

  async query<R>(sql: string, params?: unknown[]): Promise<R[]> {
    try {
      const result = await this.pool.query(sql, params as unknown[]);
      return result.rows as R[];
    } catch (err) {
      throw this.unreachableOr(err);
    }
  }

  async tx<T>(fn: (c: PgTx) => Promise<T>): Promise<T> {
    try {
      return await this.txOnce(fn);
    } catch (err) {
      throw this.unreachableOr(err);
    }
  }

  /** A connection failure as `storeUnreachable`; a host that refused a write is left for the next. */
  private unreachableOr(err: unknown): unknown {
    if ((err as { code?: unknown } | null)?.code === READ_ONLY) this.hosts.failed(this.hosts.current());
    return unreachableOr(err);
  }

  private async txOnce<T>(fn: (c: PgTx) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // A checked-out connection the server drops emits 'error' on the client, which the pool
    // only handles while idle: without a listener the process would crash. The failed query
    // rejects on its own, so the event needs no action.
    client.on('error', ignore);
    let wroteEvent = false;
    const tx: PgTx = {
      query: async <R>(sql: string, params?: unknown[]) =>
        (await client.query(sql, params as unknown[])).rows as R[],
      eventWritten: () => {
        wroteEvent = true;
      },
    };
    try {
      await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
      const value = await fn(tx);
      await client.query('COMMIT');
      client.off('error', ignore);
      client.release();
      if (wroteEvent) this.outbox.committed();
      return value;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
        client.off('error', ignore);
        client.release();
      } catch (rollbackErr) {
        // The connection is broken: destroy it rather than hand it to the next caller.
        client.off('error', ignore);
        client.release(rollbackErr as Error);
      }
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /** A connection failure as `unavailable`, its message free of the URL's password. */
  private describe(err: unknown, context: string): SvcError {
    const message = redactSecrets((err as Error).message ?? String(err), this.url);
    const mapped = pgStoreError(err, 'the database');
    if (mapped instanceof SvcError)
      return new SvcError(mapped.kind, `${context}: ${message}`, { cause: err });
    return new SvcError('unavailable', `${context}: ${message}`, { cause: err });
  }
}

function ignore(): void {}

/** The oldest server svc runs on: decisions plan with `plan_cache_mode` (commit-queue.ts), new in 12. */
export const MIN_SERVER_VERSION = 120000;

/** Refuse a server older than MIN_SERVER_VERSION (`server_version_num`), naming both. */
export function tooOld(versionNum: number): SvcError | undefined {
  if (versionNum >= MIN_SERVER_VERSION) return undefined;
  const major = (n: number) =>
    n >= 100000 ? String(Math.floor(n / 10000)) : `${Math.floor(n / 10000)}.${Math.floor(n / 100) % 100}`;
  return new SvcError(
    'unavailable',
    `the database server runs PostgreSQL ${major(versionNum)}; svc needs PostgreSQL ${major(MIN_SERVER_VERSION)} or newer`,
    { remedy: 'upgrade the server, or point --store at a newer one' },
  );
}

/**
 * A pool's connection class that opens each connection to the host the selector names
 * now, and tells it when that connection could not be opened (so the next goes elsewhere).
 */
function routedClient(hosts: HostSelector): new () => pg.ClientBase {
  return class RoutedClient extends pg.Client {
    readonly svcHost: PgHost;

    constructor(config?: pg.ClientConfig) {
      const host = hosts.current();
      super({ ...config, connectionString: host.url });
      this.svcHost = host;
      // pg-pool opens with connect(callback); the promise form is wrapped too for completeness.
      const open = pg.Client.prototype.connect.bind(this) as (cb?: (err: Error | null) => void) => unknown;
      const failed = (err: unknown) => {
        if (err) hosts.failed(host);
      };
      Object.defineProperty(this, 'connect', {
        value: (cb?: (err: Error | null) => void) => {
          if (cb)
            return open((err) => {
              failed(err);
              cb(err);
            });
          return (open() as Promise<void>).catch((err: unknown) => {
            failed(err);
            throw err;
          });
        },
      });
    }
  } as unknown as new () => pg.ClientBase;
}

/** SQLSTATE read_only_sql_transaction: a write reached a standby (or a read-only session). */
const READ_ONLY = '25006';

/** SQLSTATE classes and socket errors that mean the server cannot be reached or is going away. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '3D000', // invalid_catalog_name: the database in the URL does not exist
  '28000', // invalid_authorization_specification
  '28P01', // invalid_password
  READ_ONLY, // the host is a standby now (a failover): nothing was written; the next host is tried
]);

/**
 * The server cannot be reached or is going away: a socket error, SQLSTATE class 08
 * (connection exception), 57P01-57P03 (shutdown, crash, not accepting connections yet), a
 * pool checkout that timed out, a connection dropped mid-query.
 */
export function isStoreUnreachable(err: unknown): boolean {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  return CONNECTION_CODES.has(code) || code.startsWith('08') || isDroppedConnection(err);
}

/**
 * What every route answers while the database cannot be reached (503), in the words the
 * SQLite store uses: a request whose store work failed stops there, so no provider is
 * called after it. One case is not certain: a connection lost while its COMMIT was in
 * flight may have committed. The remedy covers it: a retry with the same effect key is
 * answered with the outcome recorded, or makes it once.
 */
export function storeUnreachable(cause: unknown): SvcError {
  return new SvcError('unavailable', 'the store is unreachable; nothing was committed or executed', {
    cause,
    remedy:
      'retry with the same body (and effect key) once the database answers; GET /readyz reports when it does',
  });
}

/** A connection failure as `storeUnreachable`, anything else unchanged (for its caller to map). */
function unreachableOr(err: unknown): unknown {
  return !(err instanceof SvcError) && isStoreUnreachable(err) ? storeUnreachable(err) : err;
}

/** Failures a retry may cure: a statement that hit its timeout, a serialization conflict, a deadlock. */
const RETRY_CODES = new Set(['57014', '40001', '40P01', '55P03']);

/**
 * Translate PostgreSQL failures into the coded family, as storeError does for SQLite;
 * anything unexpected is returned unchanged (and surfaces as internal).
 */
export function pgStoreError(err: unknown, what: string): unknown {
  if (err instanceof SvcError) return err;
  const code = String((err as { code?: unknown }).code ?? '');
  if (code === '23505') return new SvcError('already_exists', `${what} already exists`, { cause: err });
  if (code === '23503') {
    return new SvcError('not_found', `${what} refers to something that does not exist`, { cause: err });
  }
  if (RETRY_CODES.has(code)) {
    // the statement failed, so its transaction rolled back: certain, unlike a lost COMMIT
    return new SvcError('unavailable', 'the database is busy; nothing was committed or executed', {
      cause: err,
      remedy: 'retry with the same body (and effect key)',
    });
  }
  if (isStoreUnreachable(err)) return storeUnreachable(err);
  return err;
}

/** node-postgres reports a connection lost mid-query, or a pool wait that timed out, without a code. */
function isDroppedConnection(err: unknown): boolean {
  const message = (err as Error | undefined)?.message ?? '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end/i.test(
    message,
  );
}
