import type Database from 'better-sqlite3';
import { SvcError } from '../../core/errors.js';
import { batchEndOf, type BatchEnd } from './batch-end.js';
import type { Checkpointer } from './checkpointer.js';
import type { Db } from './database.js';
import type { DurableSync } from './wal-sync.js';
import { lockWaitOf, nextDelay, storeBusy, tryBegin, txControl } from './write-lock.js';
import type { CommitObserver } from '../commit-observer.js';

interface Job<T> {
  work: () => T;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
  /** when waiting for the write lock stops and the caller gets a 503 */
  deadline: number;
  /** its rows of the log state and activity may wait for the batch's end (batch-end.ts) */
  deferWrites: boolean;
  result?: { ok: true; value: T } | { ok: false; error: unknown };
}

/** fsyncs in flight at once: enough to overlap one with the next batch's, few enough to leave the pool free. */
const MAX_SYNCS = 2;

/**
 * A lone job's fsync runs on the event loop itself only while the last one took less than
 * this: on a disk this fast the loop is held for less than the thread pool's hand-off and
 * wake-up cost a lone caller (see `sync`); on a slower one it never is.
 */
export const INLINE_SYNC_MAX_MS = 1;

/** When a lone job's fsync may run on the event loop (see `CommitQueue.sync`). */
export interface InlineSync {
  /** True while the process serves at most one request (the lone job's own, if any). */
  quiet: () => boolean;
  /** Only while the last fsync took less than this; `INLINE_SYNC_MAX_MS` by default. */
  maxMs?: number;
}

/** Committed work waiting for the fsync that makes it durable. */
interface Unsynced {
  jobs: Job<unknown>[];
  /** the commit count when these committed: a durability barrier waits until it is synced */
  seq: number;
}

/**
 * Group commit. Work submitted in the same turn of the event loop runs in one IMMEDIATE
 * transaction, and every caller is answered only after the shared COMMIT is durable. A
 * commit costs an fsync; sharing it is what makes durable decisions fast.
 *
 * A job that throws rolls back alone. A batch first runs without savepoints: a savepoint
 * copies every page a job first touches into a sub-journal, which cost a tenth of a
 * decision. A job that throws having changed no row (its statements' own changes are undone
 * by SQLite, statement by statement) leaves nothing to undo; if one throws having changed
 * rows, the whole transaction is rolled back, nothing of it committed, and the batch runs
 * again with one savepoint per job. A job is a pure function of the state it reads, so
 * running it again is safe. Jobs change rows with INSERT, UPDATE and DELETE only (what
 * `total_changes()` counts).
 *
 * With a `DurableSync` (wal-sync.ts) the fsync leaves the event loop: the batch commits with
 * synchronous=NORMAL (frames written, not synced), the WAL is fdatasync'ed on the thread
 * pool, and only then are its callers answered. The next batch is decided and committed
 * while that fsync runs, and gets its own fsync at once (see `sync`). A batch of one job
 * while the process serves no other request (one caller at a time) is synced on the event
 * loop instead, while fsyncs stay fast (`InlineSync`): no one else waits for the loop, and
 * the hand-off to the pool and back cost that caller 0.05 to 0.1 ms. If an fsync
 * ever fails, what it covered may not survive a crash, so the queue stops: its callers and
 * every later one get a 503, until the daemon is restarted (and recovers from the file).
 *
 * A job submitted with `deferWrites` lets the rows every decision moves on (the journal's log
 * state, the activity counts) wait for the batch's end, where they are written once, before
 * the COMMIT (batch-end.ts); what waits is dropped with a rollback and goes back with a job's
 * savepoint.
 *
 * When another process holds the write lock, the queue never waits on the event loop: it
 * retries on a timer (jobs keep queueing and join the batch) and answers each job that
 * passes its deadline with a 503 before any of its work ran.
 */
export class CommitQueue {
  private pending: Job<unknown>[] = [];
  private scheduled = false;
  private delay = 1;
  private unsynced: Unsynced[] = [];
  /** fsyncs in flight */
  private syncing = 0;
  /** batches committed (each numbered by this count when it committed) */
  private committed = 0;
  /** the last batch the latest fsync call covers */
  private called = 0;
  /** the last batch known durable */
  private synced = 0;
  /** how long the last fsync took, from call to answer (unknown at first: not inline) */
  private lastSyncMs = Number.POSITIVE_INFINITY;
  private barriers: { seq: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private broken: SvcError | undefined;
  /** the next batch runs with one savepoint per job: its first run threw after changing rows */
  private isolate = false;
  private readonly totalChanges: Database.Statement<[], number>;
  private readonly end: BatchEnd;
  private readonly relaxed: Database.Statement | undefined;
  private readonly strict: Database.Statement | undefined;

  constructor(
    private readonly db: Db,
    private readonly maxBatch = 256,
    private readonly wal: DurableSync | null = null,
    private readonly checkpointer: Checkpointer | null = null,
    /** absent: every fsync goes through the thread pool */
    private readonly inline: InlineSync | null = null,
    /** told of each batch's size and each fsync's duration (metrics) */
    private readonly observer: CommitObserver | null = null,
  ) {
    this.totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck();
    this.end = batchEndOf(db);
    if (wal) {
      this.relaxed = db.prepare('PRAGMA synchronous = NORMAL');
      this.strict = db.prepare('PRAGMA synchronous = FULL');
    }
  }

  /**
   * Undefined when everything committed so far is durable; otherwise resolves once it is.
   * A reply that shows committed state (a read) waits for it, so nothing a client is shown
   * can be lost to a crash.
   */
  durable(): Promise<void> | undefined {
    if (this.broken) return Promise.reject(this.broken);
    if (this.synced === this.committed) return undefined;
    const seq = this.committed;
    return new Promise((resolve, reject) => this.barriers.push({ seq, resolve, reject }));
  }

  /**
   * `deferWrites`: the job reads the journal's log state and activity counts only through
   * its journal writer, so the rows it moves on may wait for the batch's end (batch-end.ts).
   */
  submit<T>(work: () => T, opts: { deferWrites?: boolean } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const deadline = Date.now() + lockWaitOf(this.db).deadlineMs;
      const deferWrites = opts.deferWrites === true;
      this.pending.push({ work, resolve, reject, deadline, deferWrites } as Job<unknown>);
      this.schedule(0);
    });
  }

  private schedule(ms: number): void {
    if (this.scheduled) return;
    this.scheduled = true;
    if (ms === 0) setImmediate(() => this.flush());
    else setTimeout(() => this.flush(), ms);
  }

  private flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    if (this.broken) {
      for (const job of this.pending.splice(0)) job.reject(this.broken);
      return;
    }
    // SQLite reads the safety level at COMMIT but refuses to change it inside a
    // transaction: relax it around this batch only; every other write stays FULL.
    this.relaxed?.run();
    let batch: Job<unknown>[] | undefined;
    try {
      batch = this.commitBatch();
    } finally {
      this.strict?.run();
    }
    if (!batch) return;
    this.observer?.batch(batch.length);
    if (this.wal) {
      this.unsynced.push({ jobs: batch, seq: ++this.committed });
      this.sync();
    } else {
      answer(batch);
    }
    // After the sync is called: a lone caller's inline fsync does not share the disk with it.
    this.checkpointer?.request();
  }

  /** The batch it committed, or undefined when it committed nothing (busy, failed). */
  private commitBatch(): Job<unknown>[] | undefined {
    let locked: boolean;
    try {
      locked = tryBegin(this.db);
    } catch (err) {
      this.failAll(this.pending.splice(0), err);
      return undefined;
    }
    if (!locked) {
      this.expire();
      if (this.pending.length > 0) this.schedule(this.delay);
      this.delay = nextDelay(this.delay);
      return undefined;
    }
    this.delay = 1;
    const batch = this.pending.splice(0, this.maxBatch);
    if (this.pending.length > 0) this.schedule(0);
    const tx = txControl(this.db);
    const isolated = this.isolate;
    this.isolate = false;
    if (isolated) this.runIsolated(batch);
    else if (!this.run(batch)) {
      if (this.db.inTransaction) tx.rollback.run();
      this.end.discard();
      for (const job of batch) delete job.result;
      this.pending.unshift(...batch);
      this.isolate = true;
      this.schedule(0);
      return undefined;
    }
    try {
      this.end.flush();
      tx.commit.run();
    } catch (err) {
      if (this.db.inTransaction) tx.rollback.run();
      this.end.discard();
      this.failAll(batch, err);
      return undefined;
    }
    return batch;
  }

  /** False when a job threw having changed rows: the transaction must not commit. */
  private run(batch: Job<unknown>[]): boolean {
    for (const job of batch) {
      const before = this.totalChanges.get();
      try {
        job.result = { ok: true, value: this.end.within(job.deferWrites, job.work) };
      } catch (error) {
        job.result = { ok: false, error };
        if (!this.db.inTransaction || this.totalChanges.get() !== before) return false;
      }
    }
    return true;
  }

  private runIsolated(batch: Job<unknown>[]): void {
    for (const job of batch) {
      // SQLite ended the transaction itself (an I/O error, a full disk): what ran is rolled
      // back and nothing more may run outside it; the COMMIT then fails the whole batch.
      if (!this.db.inTransaction) break;
      // What waits for the batch's end goes back with the job's savepoint.
      const restore = this.end.mark();
      try {
        job.result = {
          ok: true,
          value: this.db.transaction(() => this.end.within(job.deferWrites, job.work))(),
        };
      } catch (error) {
        restore();
        job.result = { ok: false, error };
      }
    }
  }

  /**
   * An fsync covers every batch committed before it was called. A batch committed while one
   * runs gets the next at once (up to `MAX_SYNCS` in flight, which the kernel joins into its
   * journal commits) instead of waiting for it to end: whichever ends, every batch it covers
   * is answered, in commit order.
   */
  private sync(): void {
    const wal = this.wal;
    if (!wal || this.broken || this.syncing >= MAX_SYNCS || this.called === this.committed) return;
    const covers = (this.called = this.committed);
    const started = performance.now();
    if (wal.syncNow && this.alone()) {
      let failure: Error | null = null;
      try {
        wal.syncNow();
      } catch (err) {
        failure = err as Error;
      }
      this.lastSyncMs = performance.now() - started;
      this.observer?.fsync(this.lastSyncMs / 1000);
      this.settle(covers, failure);
      return;
    }
    this.syncing++;
    wal.sync((err) => {
      this.syncing--;
      this.lastSyncMs = performance.now() - started;
      this.observer?.fsync(this.lastSyncMs / 1000);
      this.settle(covers, err);
      this.sync();
    });
  }

  /**
   * One job waits for this sync, nothing else is queued or waiting for an fsync, and the
   * process serves no other request: a caller alone (one agent at a time), whom the fsync's
   * trip through the thread pool would only make wait longer, and no one else's request is
   * held while the loop waits. Only while fsyncs are fast (`INLINE_SYNC_MAX_MS`).
   */
  private alone(): boolean {
    const inline = this.inline;
    return (
      inline !== null &&
      this.pending.length === 0 &&
      this.unsynced.length === 1 &&
      this.unsynced[0]!.jobs.length === 1 &&
      inline.quiet() &&
      this.lastSyncMs < (inline.maxMs ?? INLINE_SYNC_MAX_MS)
    );
  }

  /** An fsync that covers batches up to `covers` ended: answer them, or stop the queue. */
  private settle(covers: number, err: Error | null): void {
    if (this.broken) return;
    if (err) {
      this.break(err);
      return;
    }
    if (covers <= this.synced) return;
    this.synced = covers;
    let n = 0;
    while (n < this.unsynced.length && this.unsynced[n]!.seq <= covers) answer(this.unsynced[n++]!.jobs);
    this.unsynced.splice(0, n);
    const ready = this.barriers.filter((b) => b.seq <= covers);
    this.barriers = this.barriers.filter((b) => b.seq > covers);
    for (const b of ready) b.resolve();
  }

  private break(cause: Error): void {
    this.broken = new SvcError(
      'unavailable',
      'the store could not make its commits durable (fsync failed); decisions are refused until the daemon restarts',
      {
        cause,
        remedy:
          'check the disk holding the data dir, restart the daemon, then retry with the same effect key',
      },
    );
    for (const g of this.unsynced) for (const job of g.jobs) job.reject(this.broken);
    this.unsynced = [];
    for (const b of this.barriers.splice(0)) b.reject(this.broken);
  }

  /** Jobs whose deadline passed while the lock was held elsewhere: none of their work ran. */
  private expire(): void {
    const now = Date.now();
    const late = this.pending.filter((j) => j.deadline <= now + this.delay);
    if (late.length === 0) return;
    this.pending = this.pending.filter((j) => j.deadline > now + this.delay);
    this.observer?.busy(late.length);
    for (const job of late) job.reject(storeBusy());
  }

  private failAll(batch: Job<unknown>[], err: unknown): void {
    // Nothing in the batch was committed: say so, so callers know no effect was recorded.
    const failure = new SvcError(
      'unavailable',
      'the decision could not be recorded; nothing was committed or executed',
      { cause: err, remedy: 'retry with the same body and effect key' },
    );
    for (const job of batch) job.reject(failure);
  }
}

function answer(batch: Job<unknown>[]): void {
  for (const job of batch) {
    const r = job.result!;
    if (r.ok) job.resolve(r.value);
    else job.reject(r.error);
  }
}
