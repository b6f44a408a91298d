import { SvcError } from '../../core/errors.js';
import type { Db } from './database.js';

interface Job<T> {
  work: () => T;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
  result?: { ok: true; value: T } | { ok: false; error: unknown };
}

/**
 * Group commit. Work submitted in the same turn of the event loop runs in one IMMEDIATE
 * transaction, each job inside its own savepoint (a job that throws rolls back alone), and
 * every caller is answered only after the shared COMMIT is durable. With synchronous=FULL a
 * commit costs an fsync; sharing it is what makes durable decisions fast.
 */
export class CommitQueue {
  private pending: Job<unknown>[] = [];
  private scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly maxBatch = 256,
  ) {}

  submit<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve, reject } as Job<unknown>);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending.splice(0, this.maxBatch);
    if (this.pending.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (batch.length === 0) return;
    const runAll = this.db.transaction(() => {
      for (const job of batch) {
        try {
          job.result = { ok: true, value: this.db.transaction(job.work)() };
        } catch (error) {
          job.result = { ok: false, error };
        }
      }
    });
    try {
      runAll.immediate();
    } catch (err) {
      // Nothing in the batch was committed: say so, so callers know no effect was recorded.
      const failure = new SvcError(
        'unavailable',
        'the decision could not be recorded; nothing was committed or executed',
        {
          cause: err,
          remedy: 'retry with the same body and effect key',
        },
      );
      for (const job of batch) job.reject(failure);
      return;
    }
    for (const job of batch) {
      const r = job.result!;
      if (r.ok) job.resolve(r.value);
      else job.reject(r.error);
    }
  }
}
