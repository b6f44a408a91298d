/**
 * Told of each group commit, for metrics. Called on the commit path, after the work is
 * done, so an observer only counts: it never throws and never waits.
 */
export interface CommitObserver {
  /** a transaction committed this many jobs (decisions, outcomes) together */
  batch(size: number): void;
  /** an fsync that makes committed batches durable took this long */
  fsync(seconds: number): void;
  /** this many jobs were refused as busy: the write lock stayed held elsewhere past their deadline */
  busy(jobs: number): void;
}
