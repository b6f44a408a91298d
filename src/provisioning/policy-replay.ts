/**
 * `svc policy replay`: the recorded decisions of a tenant put again to a candidate policy,
 * read from a store opened read-only (the data dir's database while the daemon runs, a
 * backup's copy, or PostgreSQL). The candidate is validated first and compiled with the
 * tenant's verbs and every verb a recorded decision asked for.
 */
import { SvcError } from '../core/errors.js';
import { compilePolicySet } from '../policy/policy-set.js';
import { Replay, type ReplayResult } from '../policy/replay.js';
import { validatePolicy } from '../policy/validation.js';
import { verbsOf } from '../policy/verbs.js';
import type { RecordedDecision, RecordedDecisions, ReplayRange } from '../store/replay-ports.js';
import { policyRejected } from './policy.js';

export interface ReplayOptions {
  tenantId: string;
  text: string;
  /** where the candidate came from, for its diagnostics */
  source: string;
  range: ReplayRange;
  examplesPer?: number;
  /**
   * Bounds for a replay run inside a server (the console): it stops at whichever comes first
   * and says which, so a report is never cut short silently. The CLI runs unbounded.
   */
  bounds?: ReplayBounds;
}

export interface ReplayBounds {
  /** decision records read at most */
  maxRead: number;
  /**
   * milliseconds spent reading and evaluating at most; time yielded to other work between
   * slices is not counted (a PostgreSQL read's wait is: it may let others run meanwhile)
   */
  maxBusyMs: number;
  /** decisions read and evaluated between two yields to the event loop */
  slice: number;
  /** yields to the event loop between slices */
  pause: () => Promise<void>;
  /** a monotonic clock in milliseconds */
  now: () => number;
}

/** Which bound stopped a bounded replay; null when it read the whole range. */
export type ReplayStop = 'decisions' | 'time' | null;

export async function replayPolicy(
  recorded: RecordedDecisions,
  opts: ReplayOptions,
): Promise<ReplayResult & { stopped: ReplayStop }> {
  if (!(await recorded.tenantExists(opts.tenantId))) {
    throw new SvcError('not_found', `no tenant ${opts.tenantId} in this store`, {
      field: 'tenant',
      remedy: 'check the tenant id with svc tenant list, and the data dir or --store it reads',
    });
  }
  const verbs = verbsOf([{ actions: await recorded.verbs(opts.tenantId) }]);
  const result = validatePolicy(opts.text, verbs);
  if (!result.ok) {
    const rejected = policyRejected(opts.source, verbs, result.errors);
    throw new SvcError('invalid_request', rejected.reason, {
      code: 'policy_invalid',
      field: 'candidate',
      remedy: 'fix the lines above and replay again',
    });
  }
  const replay = new Replay(
    opts.tenantId,
    compilePolicySet(opts.text, verbs),
    await recorded.snapshots(opts.tenantId),
  );
  const stopped = opts.bounds
    ? await boundedRun(replay, recorded.decisions(opts.tenantId, opts.range, opts.bounds.slice), opts.bounds)
    : await wholeRun(replay, recorded.decisions(opts.tenantId, opts.range));
  return { ...replay.finish(opts.examplesPer), stopped };
}

async function wholeRun(replay: Replay, pages: AsyncIterable<RecordedDecision[]>): Promise<ReplayStop> {
  for await (const page of pages) replay.add(page);
  return null;
}

/**
 * A bound is checked before each slice, so a replay stops only when a decision is left that
 * it did not read: `stopped` set means the range holds more than the report counts.
 */
async function boundedRun(
  replay: Replay,
  pages: AsyncIterable<RecordedDecision[]>,
  b: ReplayBounds,
): Promise<ReplayStop> {
  let read = 0;
  let spent = 0;
  const reader = pages[Symbol.asyncIterator]();
  try {
    for (;;) {
      let started = b.now();
      const next = await reader.next();
      spent += b.now() - started;
      if (next.done) return null;
      const page = next.value;
      for (let i = 0; i < page.length;) {
        if (read >= b.maxRead) return 'decisions';
        if (spent >= b.maxBusyMs) return 'time';
        const slice = page.slice(i, i + Math.min(b.slice, b.maxRead - read));
        started = b.now();
        replay.add(slice);
        spent += b.now() - started;
        read += slice.length;
        i += slice.length;
        await b.pause();
      }
    }
  } finally {
    await reader.return?.();
  }
}
