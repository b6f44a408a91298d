import { SvcError } from '../../core/errors.js';
import type Database from 'better-sqlite3';

type Db = Database.Database;
type Statement = Database.Statement;

/**
 * How a connection waits for SQLite's write lock. better-sqlite3 is synchronous, so its
 * busy_timeout sleeps on the event loop: fine for a CLI command, fatal for the daemon,
 * where one blocked write stalls every request (health included). The daemon therefore
 * asks for the lock without waiting and retries on timers until `deadlineMs`.
 */
export interface LockWait {
  /** SQLite's own blocking wait (PRAGMA busy_timeout) */
  busyTimeoutMs: number;
  /** how long to keep retrying asynchronously after SQLite said busy; 0 for no retry */
  deadlineMs: number;
}

/** Provisioning commands: a short blocking wait is what a person at a terminal expects. */
export const BLOCKING_WAIT: LockWait = { busyTimeoutMs: 5000, deadlineMs: 0 };
/** The daemon: never block the loop; give up with a 503 after two seconds. */
export const DAEMON_WAIT: LockWait = { busyTimeoutMs: 0, deadlineMs: 2000 };

const waits = new WeakMap<Db, LockWait>();

export function setLockWait(db: Db, wait: LockWait): void {
  db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(wait.busyTimeoutMs))}`);
  waits.set(db, wait);
}

export function lockWaitOf(db: Db): LockWait {
  return waits.get(db) ?? BLOCKING_WAIT;
}

export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

export function storeBusy(cause?: unknown): SvcError {
  return new SvcError(
    'unavailable',
    'the store is busy: another process holds its write lock; nothing was committed or executed',
    {
      cause,
      remedy:
        'retry with the same body and effect key; if it persists, look for a process holding the data dir database (a running provisioning command or a stuck transaction)',
    },
  );
}

/** The next retry delay: doubling from 1 ms to 50 ms, so a released lock is noticed fast. */
export function nextDelay(delay: number): number {
  return Math.min(delay * 2, 50);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Control {
  begin: Statement;
  commit: Statement;
  rollback: Statement;
}
const controls = new WeakMap<Db, Control>();

/** BEGIN IMMEDIATE, COMMIT and ROLLBACK, prepared once per connection. */
export function txControl(db: Db): Control {
  let c = controls.get(db);
  if (!c) {
    c = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
    };
    controls.set(db, c);
  }
  return c;
}

/** Try to take the write lock now: false when another connection holds it. */
export function tryBegin(db: Db): boolean {
  try {
    txControl(db).begin.run();
    return true;
  } catch (err) {
    if (isBusy(err)) return false;
    throw err;
  }
}

/**
 * Run `work` in one IMMEDIATE transaction. Only BEGIN is retried: until it succeeds nothing
 * has run, so a retry can never apply work twice. Once the lock is held, work and COMMIT run
 * synchronously, so nothing interleaves and nothing is half-written.
 */
export async function writeTransaction<T>(db: Db, work: () => T): Promise<T> {
  // Already inside this connection's transaction (a caller composing writes): that one commits.
  if (db.inTransaction) return work();
  const { deadlineMs } = lockWaitOf(db);
  const deadline = Date.now() + deadlineMs;
  let delay = 1;
  while (!tryBegin(db)) {
    if (Date.now() + delay > deadline) throw storeBusy();
    await sleep(delay);
    delay = nextDelay(delay);
  }
  const tx = txControl(db);
  try {
    const value = work();
    tx.commit.run();
    return value;
  } catch (err) {
    if (db.inTransaction) tx.rollback.run();
    throw err;
  }
}
