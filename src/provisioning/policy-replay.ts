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
import type { RecordedDecisions, ReplayRange } from '../store/replay-ports.js';
import { policyRejected } from './policy.js';

export interface ReplayOptions {
  tenantId: string;
  text: string;
  /** where the candidate came from, for its diagnostics */
  source: string;
  range: ReplayRange;
  examplesPer?: number;
}

export async function replayPolicy(recorded: RecordedDecisions, opts: ReplayOptions): Promise<ReplayResult> {
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
  for await (const page of recorded.decisions(opts.tenantId, opts.range)) replay.add(page);
  return replay.finish(opts.examplesPer);
}
