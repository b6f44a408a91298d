import type { Db } from './database.js';

/**
 * Rows that wait for the end of the commit queue's batch. A few rows change with every
 * decision although only their value at the end of the batch is ever read after it: the
 * journal's log state (size, chain hash, frontier) and the activity counts, which add up.
 * Written once per batch instead of once per decision, inside the batch's transaction, just
 * before its COMMIT. Rows every decision adds that nothing reads before the batch ends (the
 * Merkle subtrees an append completed, the recorded policy inputs) wait too, and are then
 * written several to a statement (row-batch.ts).
 *
 * Only jobs submitted with `deferWrites` let their rows wait (the decision: it reads neither
 * row but through the writer that holds what waits). Before any other job runs, what waits
 * is written, so such a job reads the store exactly as if nothing had waited.
 */
export interface Deferred {
  /** Write what waits, inside the batch's transaction. */
  flush(): void;
  /** Forget what waits: the transaction it was part of rolled back. */
  discard(): void;
  /** What waits now, to go back to when the job about to run rolls back to its savepoint. */
  mark(): () => void;
}

/** The rows waiting on one connection, and whether the job running may add to them. */
export class BatchEnd implements Deferred {
  private open = false;
  private readonly parts: Deferred[] = [];

  /** True while a job submitted with `deferWrites` runs: a write may wait for the batch's end. */
  get deferring(): boolean {
    return this.open;
  }

  join(part: Deferred): void {
    this.parts.push(part);
  }

  /** Run one job, letting its writes wait only if it was submitted so. */
  within<T>(deferWrites: boolean, work: () => T): T {
    if (!deferWrites) this.flush();
    this.open = deferWrites;
    try {
      return work();
    } finally {
      this.open = false;
    }
  }

  flush(): void {
    for (const p of this.parts) p.flush();
  }

  discard(): void {
    for (const p of this.parts) p.discard();
  }

  mark(): () => void {
    const restores = this.parts.map((p) => p.mark());
    return () => {
      for (const restore of restores) restore();
    };
  }
}

const ends = new WeakMap<Db, BatchEnd>();

/** The one `BatchEnd` of a connection, shared by its commit queue and its writers. */
export function batchEndOf(db: Db): BatchEnd {
  let end = ends.get(db);
  if (!end) ends.set(db, (end = new BatchEnd()));
  return end;
}
