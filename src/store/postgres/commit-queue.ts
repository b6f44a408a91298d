import { SvcError } from '../../core/errors.js';
import { isStoreUnreachable, pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant, lockTenants, tryLockTenants } from './locks.js';
import { preparedTransaction } from './prepared.js';

/**
 * What jobs of one kind share within one run of a batch (decision-batch.ts): reads made once
 * for all of them and writes held to go out together.
 */
export interface SharedRun {
  /** before a job of another kind runs: what is held is written, and the sharing ends */
  beforeOther(): Promise<void>;
  /** before COMMIT: what is held is written */
  finish(): Promise<void>;
}

/** Opens the shared run of a batch, given each job's tag (undefined for a job that shares nothing). */
export type Sharing = (tx: PgTx, tags: unknown[]) => SharedRun;

/** A job's place in the shared run of its batch. */
export interface SharedPlace {
  run: SharedRun;
  index: number;
}

interface Job<T> {
  tenantId: string;
  work: (tx: PgTx, shared?: SharedPlace) => Promise<T>;
  /** what a job that can share tells the sharing about itself before the batch runs */
  tag?: unknown;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
  result?: { ok: true; value: T } | { ok: false; error: unknown };
}

export interface CommitQueueOptions {
  /** most jobs sharing one transaction */
  maxBatch?: number;
  /** batches open at once (over distinct tenants), each holding a pooled connection (default 2) */
  maxInFlight?: number;
  /** how long a batch waits for a tenant lock another replica holds before it gives up */
  lockTimeoutMs?: number;
}

/** A job threw in a batch run without savepoints: the batch is rolled back and run again with them. */
class RunWithSavepoints extends Error {}

/** One run of a batch: the jobs it ran (those whose tenants it locked), and whether it reached COMMIT. */
interface Attempt {
  /** set once every job has run and its writes are sent: a failure after it is the COMMIT's, whose outcome is unknown */
  committing: boolean;
  ran: Job<unknown>[];
}

/**
 * Group commit on PostgreSQL. Jobs submitted while a batch runs gather into the next one,
 * which shares one transaction and one COMMIT; every caller is answered only after that
 * COMMIT returned.
 *
 * Before any job runs, the batch holds the advisory lock of the tenant of every job it
 * runs (locks.ts, `lock` below): a job then reads the state it decides on with no other
 * replica able to change it. A job must touch only the tenant it was submitted for. A batch
 * waits for at most one lock while holding none, or for several in sorted order after a
 * failure, so batches anywhere never wait on each other in a cycle.
 *
 * A tenant has at most one batch in flight per replica: its batches serialise on its lock
 * anyway, and a second one open would only split the gathering (and the commits) in two.
 * Batches of distinct tenants run side by side, up to `maxInFlight`.
 *
 * A job that throws rolls back alone: a batch first runs without savepoints (the common
 * case costs no extra round trips); if a job throws, the whole transaction is rolled back,
 * nothing of it was committed, and the batch runs again with one SAVEPOINT per job. A job
 * is a pure function of the state it reads, so running it again is safe.
 */
export class PgCommitQueue {
  private pending: Job<unknown>[] = [];
  private readonly busy = new Set<string>();
  private scheduled = false;
  private inFlight = 0;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private readonly lockTimeoutMs: number;
  private sharing: Sharing | undefined;
  /** Batches committed or failed, and how many ran again with every job alone (after a failure). */
  readonly stats = { batches: 0, reruns: 0 };

  constructor(
    private readonly db: PgDb,
    opts: CommitQueueOptions = {},
  ) {
    this.maxBatch = opts.maxBatch ?? 256;
    // Two: while one batch commits the next one works, and the rest gather (npm run bench --
    // replicas: more batches in flight split the gathering into small commits, each costing
    // the database its round trips and its flush, and more tenant locks taken side by side by
    // replicas that share tenants).
    this.maxInFlight = opts.maxInFlight ?? 2;
    this.lockTimeoutMs = opts.lockTimeoutMs ?? 5000;
  }

  /** Jobs submitted with a tag share reads and writes through this (one kind of job only). */
  share(sharing: Sharing): void {
    this.sharing = sharing;
  }

  submit<T>(
    tenantId: string,
    work: (tx: PgTx, shared?: SharedPlace) => Promise<T>,
    tag?: unknown,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ tenantId, work, tag, resolve, reject } as Job<unknown>);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.pending.length === 0) return;
    this.scheduled = true;
    // One turn of the event loop: requests that arrived together share the commit.
    setImmediate(() => {
      this.scheduled = false;
      this.start();
    });
  }

  /** Start batches of what is pending, up to `maxInFlight`. */
  private start(): void {
    while (this.inFlight < this.maxInFlight) {
      const batch = this.take();
      if (batch.length === 0) return;
      const tenants = new Set(batch.map((j) => j.tenantId));
      for (const t of tenants) this.busy.add(t);
      this.inFlight++;
      let released = false;
      // Called once the batch's transaction has ended, before its callers are answered: the
      // next batch of its tenants starts at once (the jobs that gathered meanwhile), so the
      // tenant's lock is not left idle while the answers are written out.
      const release = () => {
        if (released) return;
        released = true;
        for (const t of tenants) this.busy.delete(t);
        this.inFlight--;
        this.start();
      };
      void this.run(batch, release).finally(release);
    }
  }

  /** The next batch: pending jobs of tenants with no batch in flight here, in arrival order. */
  private take(): Job<unknown>[] {
    const batch: Job<unknown>[] = [];
    const rest: Job<unknown>[] = [];
    for (const job of this.pending) {
      if (batch.length < this.maxBatch && !this.busy.has(job.tenantId)) batch.push(job);
      else rest.push(job);
    }
    this.pending = rest;
    return batch;
  }

  /**
   * Take the locks of the batch's tenants and return the jobs that may run. A batch of one
   * tenant waits for its lock. A batch of several takes, without waiting, the locks no
   * other replica holds, and runs those tenants' jobs; the others go back to the head of the
   * queue for the next batch. Waiting for every lock in turn would hold the ones already
   * taken meanwhile, and replicas whose batches share tenants would queue behind each
   * other instead of working side by side. When no lock was free the batch waits for the
   * oldest job's tenant alone, so every tenant's jobs are served in turn.
   */
  private async lock(tx: PgTx, batch: Job<unknown>[], wait: boolean): Promise<Job<unknown>[]> {
    const tenants = [...new Set(batch.map((j) => j.tenantId))];
    if (tenants.length === 1 || wait) {
      await lockTenants(tx, tenants);
      return batch;
    }
    const held = await tryLockTenants(tx, tenants);
    if (held.size === 0) {
      await lockTenant(tx, batch[0]!.tenantId);
      held.add(batch[0]!.tenantId);
    }
    return held.size === tenants.length ? batch : batch.filter((j) => held.has(j.tenantId));
  }

  private async run(batch: Job<unknown>[], release: () => void): Promise<void> {
    this.stats.batches++;
    const phase: Attempt = { committing: false, ran: batch };
    try {
      try {
        await this.transaction(batch, false, phase);
      } catch (err) {
        if (!(err instanceof RunWithSavepoints)) throw err;
        this.stats.reruns++;
        for (const job of phase.ran) delete job.result;
        await this.transaction(phase.ran, true, phase);
      }
    } catch (err) {
      this.requeue(batch, phase.ran);
      release();
      this.failAll(phase.ran, err, phase.committing);
      return;
    }
    this.requeue(batch, phase.ran);
    release();
    for (const job of phase.ran) {
      const r = job.result!;
      if (r.ok) job.resolve(r.value);
      else job.reject(pgStoreError(r.error, 'the record'));
    }
  }

  /** The jobs of tenants another replica held go back first in line for the next batch. */
  private requeue(batch: Job<unknown>[], ran: Job<unknown>[]): void {
    if (ran === batch) return;
    const done = new Set(ran);
    this.pending.unshift(...batch.filter((j) => !done.has(j)));
  }

  private transaction(taken: Job<unknown>[], savepoints: boolean, phase: Attempt): Promise<void> {
    return preparedTransaction(
      this.db.pool,
      async (tx) => {
        // A run with savepoints runs again the jobs that ran, under the same locks.
        const batch = await this.lock(tx, taken, savepoints);
        phase.ran = batch;
        // A run with savepoints is a run after a failure: every job alone, as plainly as possible.
        const shared =
          !savepoints && this.sharing && batch.some((j) => j.tag !== undefined)
            ? this.sharing(
                tx,
                batch.map((j) => j.tag),
              )
            : undefined;
        for (const [index, job] of batch.entries()) {
          if (!savepoints) {
            if (shared && job.tag === undefined) await shareOrRetry(() => shared.beforeOther());
            try {
              const place = shared && job.tag !== undefined ? { run: shared, index } : undefined;
              job.result = { ok: true, value: await job.work(tx, place) };
            } catch (error) {
              // Alone in its batch, the job's own error is its answer; otherwise run again isolated.
              job.result = { ok: false, error };
              throw batch.length === 1 ? new JobFailed() : new RunWithSavepoints();
            }
            continue;
          }
          await tx.query('SAVEPOINT job');
          try {
            job.result = { ok: true, value: await job.work(tx) };
            await tx.query('RELEASE SAVEPOINT job');
          } catch (error) {
            job.result = { ok: false, error };
            await tx.query('ROLLBACK TO SAVEPOINT job');
          }
        }
        if (shared) await shareOrRetry(() => shared.finish());
        phase.committing = true;
      },
      this.db.outbox,
      // Plans made for this batch's values and the tables' sizes now: a plan cached while the
      // tables were small (a new database, a new daemon's first decisions) can scan a tenant's
      // every intent per decision once they have grown (npm run bench -- replicas saw 10x).
      `SET LOCAL lock_timeout = ${Math.max(1, Math.trunc(this.lockTimeoutMs))}; SET LOCAL plan_cache_mode = force_custom_plan`,
    );
  }

  private failAll(batch: Job<unknown>[], err: unknown, committing: boolean): void {
    if (err instanceof JobFailed) {
      // A batch of one whose job threw: rolled back, answered with the job's own error.
      const r = batch[0]!.result as { ok: false; error: unknown };
      batch[0]!.reject(pgStoreError(r.error, 'the record'));
      return;
    }
    if (committing && isStoreUnreachable(err)) {
      // The connection went during COMMIT: the server may have committed. Saying "nothing
      // was committed" here would be false, so each caller is told what to reconcile.
      for (const job of batch) {
        // a job rolled back to its savepoint changed nothing: its own error is still its answer
        if (job.result?.ok === false) job.reject(pgStoreError(job.result.error, 'the record'));
        else job.reject(commitUncertain(err, intentOf(job)));
      }
      return;
    }
    const failure =
      (err as { code?: unknown }).code === '55P03'
        ? new SvcError(
            'unavailable',
            // the tenant's lock (another replica's batch) or a table lock (an outside session)
            'the store is busy: a lock the decision needs was held too long; nothing was committed or executed',
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

/** The intent a job sealed, when its value names one (a decision): what the caller reconciles. */
function intentOf(job: Job<unknown>): string | undefined {
  const value =
    job.result?.ok === true ? (job.result.value as { intentId?: unknown } | undefined) : undefined;
  return typeof value?.intentId === 'string' ? value.intentId : undefined;
}

/**
 * A COMMIT whose connection was lost: committed or not, the caller cannot tell. The spec's
 * 503 for an uncertain outcome names what to reconcile; the effect key makes a retry safe
 * either way (it answers with the recorded outcome, or decides once).
 */
export function commitUncertain(cause: unknown, intentId: string | undefined): SvcError {
  const what = intentId === undefined ? 'the decision' : `intent ${intentId}`;
  return new SvcError(
    'unavailable',
    `the connection to the database was lost while ${what} was being committed: it may have been recorded; its outcome is unknown`,
    {
      cause,
      remedy:
        'reconcile with GET /v1/receipts?task_id=<task> (or svc receipts list --task) before acting; a retry with the same body and effect key answers with the recorded outcome or decides once',
    },
  );
}

/** Thrown out of a batch of one to roll it back; the job's own error is answered. */
class JobFailed extends Error {}

/**
 * Shared writes that failed belong to no one job: the batch is rolled back and runs again
 * with every job alone, which answers each with its own result.
 */
async function shareOrRetry(write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch {
    throw new RunWithSavepoints();
  }
}
