import { chmodSync, existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { SvcError } from '../../core/errors.js';
import { MIGRATIONS } from './migrations.js';
import { policyHash } from '../../core/policy-version.js';
import { BLOCKING_WAIT, isBusy, setLockWait, type LockWait } from './write-lock.js';

export type Db = Database.Database;

/**
 * Open the SQLite file with the durability the product promises: WAL so the CLI can
 * provision while the daemon runs, synchronous=FULL so an acknowledged decision survives
 * power loss. Opening and migrating wait for another writer (blocking, briefly); after that
 * the connection waits for the write lock as `lockWait` says (the daemon never blocks).
 */
export function openDatabase(file: string, opts: { readonly?: boolean; lockWait?: LockWait } = {}): Db {
  let db: Db;
  const fresh = !opts.readonly && !existsSync(file);
  try {
    db = new Database(file, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  } catch (err) {
    throw new SvcError('unavailable', `cannot open the database ${file}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  // Token hashes and journal records live here: owner-only, like the keys.
  if (fresh) chmodSync(file, 0o600);
  db.pragma('busy_timeout = 5000');
  if (!opts.readonly) {
    whileBusy(() => db.pragma('journal_mode = WAL'));
    db.pragma('synchronous = FULL');
  }
  db.pragma('foreign_keys = ON');
  if (!opts.readonly) whileBusy(() => migrate(db));
  setLockWait(db, opts.lockWait ?? BLOCKING_WAIT);
  return db;
}

const OPEN_WAIT_MS = 5000;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Run a step of opening again while another process holds the file. Processes racing to
 * open a fresh data dir (a CLI command beside the first daemon start) can get SQLITE_BUSY at
 * once from the switch to WAL: SQLite answers busy without calling the busy handler where
 * waiting could deadlock. Opening is allowed to block briefly, so wait and try again.
 */
function whileBusy<T>(step: () => T): T {
  const end = Date.now() + OPEN_WAIT_MS;
  for (;;) {
    try {
      return step();
    } catch (err) {
      if (!isBusy(err) || Date.now() > end) throw err;
      Atomics.wait(pause, 0, 0, 25);
    }
  }
}

/** Apply every pending migration in one IMMEDIATE transaction, so two processes never race. */
export function migrate(db: Db): number {
  // The policy-history migration hashes the stored policies, which SQLite cannot do itself.
  db.function('svc_sha256_hex', { deterministic: true }, (text) => policyHash(String(text)));
  const apply = db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > MIGRATIONS.length) {
      throw new SvcError(
        'unavailable',
        `the database is at schema version ${current}, newer than this svc understands (${MIGRATIONS.length})`,
        { remedy: 'upgrade svc to the version that wrote this data dir' },
      );
    }
    for (let v = current; v < MIGRATIONS.length; v++) {
      db.exec(MIGRATIONS[v] as string);
    }
    if (current !== MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
    return MIGRATIONS.length;
  });
  return apply.immediate();
}

/** Translate SQLite failures into the coded family; anything unexpected stays internal. */
export function storeError(err: unknown, what: string): unknown {
  const code = (err as { code?: string }).code ?? '';
  if (code.startsWith('SQLITE_CONSTRAINT_UNIQUE') || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new SvcError('already_exists', `${what} already exists`, { cause: err });
  }
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new SvcError('not_found', `${what} refers to something that does not exist`, { cause: err });
  }
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new SvcError('unavailable', 'the database is busy; try again', { cause: err });
  }
  return err;
}

const statements = new WeakMap<Db, Map<string, Database.Statement>>();

/** A prepared statement, compiled once per connection: preparing costs more than most queries. */
export function prep(db: Db, sql: string): Database.Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let s = cache.get(sql);
  if (!s) cache.set(sql, (s = db.prepare(sql)));
  return s;
}
