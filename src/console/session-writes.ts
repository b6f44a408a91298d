import { SvcError } from '../core/errors.js';
import type { ConsoleSessionRepo } from '../store/console-ports.js';
import { DAEMON_WAIT, isBusy, nextDelay, storeBusy } from '../store/sqlite/write-lock.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** SQLite's busy answer, bare or as the coded error the adapter wraps it in. */
const busy = (err: unknown) => isBusy(err) || (err instanceof SvcError && isBusy(err.cause));

/**
 * The session repository with its writes waiting for SQLite's write lock. The SQLite adapter
 * runs a session write (sign-in, sign-out, ending an expired session, the idle touch) as one
 * statement on the console's connection, which never sleeps on the lock (busy_timeout 0, see
 * write-lock.ts): while the daemon commits, SQLite answers SQLITE_BUSY at once and nothing
 * is written, which left the console as a 500. So the write is tried again on timers, as the
 * store's own transactions are, and past the console's deadline it is the store's coded 503.
 * A statement SQLite refused as busy did not run: running it again never applies it twice.
 * Reads need no lock (WAL) and pass through; on PostgreSQL nothing answers busy.
 */
export function waitingForLock(
  repo: ConsoleSessionRepo,
  deadlineMs = DAEMON_WAIT.deadlineMs,
): ConsoleSessionRepo {
  const write = async <T>(work: () => Promise<T>): Promise<T> => {
    const deadline = Date.now() + deadlineMs;
    let delay = 1;
    for (;;) {
      try {
        return await work();
      } catch (err) {
        if (!busy(err)) throw err;
        if (Date.now() + delay > deadline) throw storeBusy(err);
        await sleep(delay);
        delay = nextDelay(delay);
      }
    }
  };
  return {
    create: (idHash, session) => write(() => repo.create(idHash, session)),
    find: (idHash) => repo.find(idHash),
    touch: (idHash, at) => write(() => repo.touch(idHash, at)),
    delete: (idHash) => write(() => repo.delete(idHash)),
    purge: (now) => write(() => repo.purge(now)),
  };
}
