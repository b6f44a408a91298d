import { SvcError } from '../../core/errors.js';
import type { PgDb, PgTx } from './database.js';
import { lockTenants } from './locks.js';

interface Job<T> {
  tenantId: string;
  work: (tx: PgTx) => Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
  result?: { ok: true; value: T } | { ok: false; error: unknown };
}

export interface CommitQueueOptions {
  /** most jobs sharing one transaction */
  maxBatch?: number;
  /** batches open at once: while one commits, the next gathers and takes its locks */
  maxInFlight?: number;
  /** how long a batch waits for a tenant lock another replica holds before it gives up */
  lockTimeoutMs?: number;
}

/** Thrown out of a batch of one to roll it back; the job's own error is answered. */
class JobFailed extends Error {}

/**
 * Group commit on PostgreSQL. Jobs submitted while a batch is gathering share one
 * transaction and one COMMIT; each runs in its own SAVEPOINT, so a job that throws rolls
 * back alone. Every caller is answered only after the shared COMMIT returned.
 *
 * Before any job runs, the batch takes the advisory lock of every tenant it touches, in
 * sorted order (locks.ts): a job then reads the state it decides on with no other replica
 * able to change it, and two batches anywhere can never wait on each other in a cycle.
 * A job must touch only the tenant it was submitted for.
 */
export class PgCommitQueue {
  private pending: Job<unknown>[] = [];
  private scheduled = false;
  private inFlight = 0;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private readonly lockTimeoutMs: number;

  constructor(
    private readonly db: PgDb,
    opts: CommitQueueOptions = {},
  ) {
    this.maxBatch = opts.maxBatch ?? 256;
    this.maxInFlight = opts.maxInFlight ?? 4;
    this.lockTimeoutMs = opts.lockTimeoutMs ?? 5000;
  }

  submit<T>(tenantId: string, work: (tx: PgTx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ tenantId, work, resolve, reject } as Job<unknown>);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.pending.length === 0) return;
    this.scheduled = true;
    // One turn of the event loop: requests that arrived together share the commit.
    setImmediate(() => {
      this.scheduled = false;
      if (this.inFlight >= this.maxInFlight || this.pending.length === 0) return;
      const batch = this.pending.splice(0, this.maxBatch);
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.schedule();
      });
      this.schedule();
    });
  }

  private async run(batch: Job<unknown>[]): Promise<void> {
    try {
      await this.db.tx(async (tx) => {
        await tx.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.trunc(this.lockTimeoutMs))}`);
        await lockTenants(tx, [...new Set(batch.map((j) => j.tenantId))]);
        if (batch.length === 1) {
          const job = batch[0]!;
          try {
            job.result = { ok: true, value: await job.work(tx) };
          } catch (error) {
            job.result = { ok: false, error };
            throw new JobFailed();
          }
          return;
        }
        for (const job of batch) {
          await tx.query('SAVEPOINT job');
          try {
            job.result = { ok: true, value: await job.work(tx) };
            await tx.query('RELEASE SAVEPOINT job');
          } catch (error) {
            job.result = { ok: false, error };
            await tx.query('ROLLBACK TO SAVEPOINT job');
          }
        }
      });
    } catch (err) {
      if (err instanceof JobFailed) {
        // A batch of one whose job threw: rolled back, answered with the job's own error.
        const r = batch[0]!.result as { ok: false; error: unknown };
        batch[0]!.reject(r.error);
        return;
      }
      this.failAll(batch, err);
      return;
    }
    for (const job of batch) {
      const r = job.result!;
      if (r.ok) job.resolve(r.value);
      else job.reject(r.error);
    }
  }

  private failAll(batch: Job<unknown>[], err: unknown): void {
    const failure =
      (err as { code?: unknown }).code === '55P03'
        ? new SvcError(
            'unavailable',
            'the store is busy: another replica held the tenant lock too long; nothing was committed or executed',
            { cause: err, remedy: 'retry with the same body and effect key' },
          )
        : new SvcError(
            'unavailable',
            'the decision could not be recorded; nothing was committed or executed',
            {
              cause: err,
              // A connection lost during COMMIT cannot say whether it landed; the retry is safe
              // either way: the effect key answers with the recorded outcome or makes it once.
              remedy: 'retry with the same body and effect key',
            },
          );
    for (const job of batch) job.reject(failure);
  }
}
