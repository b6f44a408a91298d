import { SvcError } from '../../core/errors.js';
import type { Db } from './database.js';
import { lockWaitOf, nextDelay, storeBusy, tryBegin, txControl } from './write-lock.js';

interface Job<T> {
  work: () => T;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
  /** when waiting for the write lock stops and the caller gets a 503 */
  deadline: number;
  result?: { ok: true; value: T } | { ok: false; error: unknown };
}

/**
 * Group commit. Work submitted in the same turn of the event loop runs in one IMMEDIATE
 * transaction, each job inside its own savepoint (a job that throws rolls back alone), and
 * every caller is answered only after the shared COMMIT is durable. With synchronous=FULL a
 * commit costs an fsync; sharing it is what makes durable decisions fast.
 *
 * When another process holds the write lock, the queue never waits on the event loop: it
 * retries on a timer (jobs keep queueing and join the batch) and answers each job that
 * passes its deadline with a 503 before any of its work ran.
 */
export class CommitQueue {
  private pending: Job<unknown>[] = [];
  private scheduled = false;
  private delay = 1;

  constructor(
    private readonly db: Db,
    private readonly maxBatch = 256,
  ) {}

  submit<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const deadline = Date.now() + lockWaitOf(this.db).deadlineMs;
      this.pending.push({ work, resolve, reject, deadline } as Job<unknown>);
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
    let locked: boolean;
    try {
      locked = tryBegin(this.db);
    } catch (err) {
      this.failAll(this.pending.splice(0), err);
      return;
    }
    if (!locked) {
      this.expire();
      if (this.pending.length > 0) this.schedule(this.delay);
      this.delay = nextDelay(this.delay);
      return;
    }
    this.delay = 1;
    const batch = this.pending.splice(0, this.maxBatch);
    if (this.pending.length > 0) this.schedule(0);
    for (const job of batch) {
      try {
        job.result = { ok: true, value: this.db.transaction(job.work)() };
      } catch (error) {
        job.result = { ok: false, error };
      }
    }
    const tx = txControl(this.db);
    try {
      tx.commit.run();
    } catch (err) {
      if (this.db.inTransaction) tx.rollback.run();
      this.failAll(batch, err);
      return;
    }
    for (const job of batch) {
      const r = job.result!;
      if (r.ok) job.resolve(r.value);
      else job.reject(r.error);
    }
  }

  /** Jobs whose deadline passed while the lock was held elsewhere: none of their work ran. */
  private expire(): void {
    const now = Date.now();
    const late = this.pending.filter((j) => j.deadline <= now + this.delay);
    if (late.length === 0) return;
    this.pending = this.pending.filter((j) => j.deadline > now + this.delay);
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
