import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './database.js';

/**
 * What the worker runs: its own connection to the same file, a PASSIVE checkpoint each
 * time it is asked. Kept as source text (an eval worker) so it runs the same from the
 * TypeScript sources in tests and from the build; it is small enough to read here.
 * PASSIVE never takes the write lock and never waits for readers: writers carry on while
 * it copies frames, and the next writer restarts the log once it has caught up.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
db.pragma('synchronous = FULL');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
parentPort.on('message', (m) => {
  if (m === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const r = checkpoint.get();
    parentPort.postMessage({ busy: r.busy, log: r.log, checkpointed: r.checkpointed });
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message) });
  }
});
`;

/**
 * Frames the committing connection lets the WAL reach before it checkpoints itself. Under
 * steady load the worker's checkpoint rarely ends between two commits, which is the moment
 * the log can restart; so this is what restarts it, but by then the worker has copied and
 * synced nearly every frame, and what is left costs the committer little. 8 MB of WAL.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 2000;
/** SQLite's default `wal_autocheckpoint`. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;
/** The least time between two checkpoints: each one costs two fsyncs. */
const MIN_INTERVAL_MS = 10;

export interface CheckpointResult {
  busy?: number;
  log?: number;
  checkpointed?: number;
  error?: string;
}

/**
 * Checkpoints a WAL database from a worker thread, so the fsyncs and page copies of a
 * checkpoint never stall the event loop that answers requests. The committing connection
 * keeps an automatic checkpoint at a higher threshold, which restarts the log and bounds it
 * even if the worker falls behind or dies.
 */
export class Checkpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private running = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** why the worker stopped, when it failed (as cloned from the worker: not an Error instance) */
  failure: unknown;
  private last: CheckpointResult | undefined;
  private waiters: ((r: CheckpointResult) => void)[] = [];

  constructor(db: Db) {
    db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    this.worker = new Worker(WORKER, {
      eval: true,
      workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file: db.name },
    });
    // A worker must never keep a finished process alive, nor take it down.
    this.worker.unref();
    this.worker.on('message', (r: CheckpointResult) => this.finished(r));
    // A worker that fails (it could not open the file, say) hands checkpoints back to the
    // committing connection at SQLite's own threshold, as before there was a worker.
    this.worker.on('error', (err: unknown) => {
      this.failure = err;
      this.stop();
      if (db.open) db.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
    });
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', () => {
        this.stop();
        resolve();
      }),
    );
  }

  /** Ask for a checkpoint after a commit; requests while one runs fold into the next. */
  request(): void {
    if (this.closed) return;
    if (this.running || this.timer) {
      this.again = true;
      return;
    }
    this.running = true;
    this.worker.postMessage('go');
  }

  /** Resolves with the result of the next checkpoint to finish (tests and shutdown). */
  next(): Promise<CheckpointResult> {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.request();
    });
  }

  /** The most recent checkpoint's result. */
  lastResult(): CheckpointResult | undefined {
    return this.last;
  }

  /** Stops the worker after the checkpoint it may be running; its connection closes. */
  async close(): Promise<void> {
    this.stop();
    // Held by the worker until it exits: an unreferenced worker would let the loop drain first.
    this.worker.ref();
    this.worker.postMessage('close');
    await this.exited;
  }

  private finished(r: CheckpointResult): void {
    this.running = false;
    this.last = r;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(r);
    if (this.again && !this.closed) {
      this.again = false;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.request();
      }, MIN_INTERVAL_MS);
      this.timer.unref();
    }
  }

  private stop(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w({ error: 'the checkpointer stopped' });
  }
}
