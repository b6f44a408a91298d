import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';
import type { Db } from './database.js';

/** What the commit queue needs of it: make everything committed so far durable, then call back. */
export interface DurableSync {
  sync(done: (err: Error | null) => void): void;
  /**
   * The same on the calling thread: returns once durable, throws if it failed. Optional: a
   * sync that has no such form is always called back.
   */
  syncNow?(): void;
}

/**
 * Makes a WAL database's committed frames durable off the event loop. The commit queue
 * commits with synchronous=NORMAL, which writes the transaction's frames to the WAL but
 * does not fsync them, then calls `sync` and answers its callers only when it completes:
 * the same guarantee as synchronous=FULL (an acknowledged commit survives power loss),
 * but the fsync waits on libuv's thread pool instead of blocking every other request.
 *
 * Why this is exact: fdatasync flushes every dirty page of the WAL file, whichever file
 * descriptor wrote it, so once it returns every frame written before the call is on disk.
 * WAL recovery replays frames up to the last commit frame whose running checksum holds,
 * so what survives a crash is a prefix of the commits: if a commit is durable, so is every
 * commit before it. SQLite itself still syncs the WAL header when it restarts the log and
 * around each checkpoint (synchronous=NORMAL keeps those).
 */
export class WalSync implements DurableSync {
  private fd: number | undefined;
  private readonly path: string;

  constructor(db: Db) {
    this.path = `${db.name}-wal`;
  }

  /** Null when `db` cannot take it: an in-memory or temporary database, or not in WAL mode. */
  static of(db: Db): WalSync | null {
    if (db.memory || db.name === '' || db.readonly) return null;
    const mode = db.pragma('journal_mode', { simple: true });
    return mode === 'wal' ? new WalSync(db) : null;
  }

  sync(done: (err: Error | null) => void): void {
    let fd: number;
    try {
      fd = this.open();
    } catch (err) {
      done(err as Error);
      return;
    }
    // The descriptor stays valid for the store's life: SQLite removes the WAL only when the
    // last connection closes, and refuses to leave WAL mode while another one is open, so
    // while this store's connection is open the file it writes is this one (a TRUNCATE
    // checkpoint by another process shortens it in place).
    fdatasync(fd, (err) => done(err));
  }

  syncNow(): void {
    fdatasyncSync(this.open());
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Already closed: nothing to release.
    }
  }

  private open(): number {
    // Read-only is enough: fdatasync needs a descriptor of the file, not write access.
    this.fd ??= openSync(this.path, 'r');
    return this.fd;
  }
}
