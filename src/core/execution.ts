import type { Appended, JournalAppend } from '../evidence/journal-append.js';
import type { SealedReceipt } from './decision/sealed.js';
import { SvcError } from './errors.js';
import { checkGuarded } from './guarded-write.js';
import { executionRecord, type ExecutionOutcome, type ExecutionSubject } from './records/execution-record.js';
import { receiptOf } from './records/sealed-receipt.js';
import { asker, type UseCase } from './use-case.js';

export type ExecutionState = 'pending' | 'succeeded' | 'failed' | 'unknown';

/** A brokered execution as stored: what its record is about, and how far it got. */
export interface StoredExecution extends ExecutionSubject {
  state: ExecutionState;
}

/** The columns an outcome sets on its execution. */
export interface ExecutionFinish {
  state: ExecutionOutcome['outcome'];
  status: number | null;
  effectId: string | null;
  digest: string | null;
  receiptId: string;
  at: string;
}

/**
 * The store operations of an execution's outcome, inside one transaction that holds the
 * tenant's writer (SQLite's commit queue, PostgreSQL's tenant lock).
 */
export interface ExecutionOps {
  execution(tenantId: string, executionId: string): StoredExecution | undefined;
  /** set the outcome where the execution is still in state `expected`: the rows changed */
  finish(tenantId: string, executionId: string, expected: ExecutionState, f: ExecutionFinish): number;
  append(record: JournalAppend, at: string): Appended;
}

const ask = asker<ExecutionOps>();

export const INTERRUPTED_REASON =
  'the daemon stopped while the call to the provider was in flight: the effect may have happened. It was not sent again; reconcile with the provider';

/** The outcome start-up recovery seals for a call its daemon left in flight. */
export const INTERRUPTED: Readonly<ExecutionOutcome> = Object.freeze({
  outcome: 'unknown',
  sent: true,
  status: null,
  effectId: null,
  digest: null,
  bytes: 0,
  error: 'interrupted',
  reason: INTERRUPTED_REASON,
});

/**
 * Record the provider's outcome of a pending execution, with its journal record. Also
 * accepted after start-up recovery marked it unknown: the later answer is the better one.
 */
export function* finishExecution(
  tenantId: string,
  executionId: string,
  o: ExecutionOutcome & { sentDigest: string | null },
  clock: () => Date,
): UseCase<ExecutionOps, SealedReceipt> {
  const e = checkFinishable(yield* ask('execution', tenantId, executionId), executionId);
  return yield* seal(e, o, { sent_digest: o.sentDigest, recovered: false }, clock);
}

/**
 * Who released a replica gone for good (`svc store replicas release`): its calls are sealed
 * as its own start-up would seal them, and each record says so.
 */
export interface ReplicaReleaseMark {
  replica_id: string;
  /** the host and process that released it */
  host: string;
  pid: number;
}

/**
 * Start-up recovery: a pending call whose daemon is gone becomes outcome unknown; it is never
 * sent again. The same seal for a released replica's calls, with `release` in the record.
 */
export function* sealInterrupted(
  e: StoredExecution,
  clock: () => Date,
  release?: ReplicaReleaseMark,
): UseCase<ExecutionOps, SealedReceipt> {
  return yield* seal(e, INTERRUPTED, release ? { recovered: true, release } : { recovered: true }, clock);
}

function* seal(
  e: StoredExecution,
  o: ExecutionOutcome,
  extra: Record<string, unknown>,
  clock: () => Date,
): UseCase<ExecutionOps, SealedReceipt> {
  const at = clock().toISOString();
  const { state, ...subject } = e;
  const record = executionRecord(subject, o, extra, at);
  const finish: ExecutionFinish = {
    state: o.outcome,
    status: o.status,
    effectId: o.effectId,
    digest: o.digest,
    receiptId: record.receiptId,
    at,
  };
  checkGuarded(`the outcome of execution ${e.id}`, yield* ask('finish', e.tenantId, e.id, state, finish));
  return receiptOf(record, yield* ask('append', record, at));
}

/** Refuses recording an outcome twice (or for an execution this tenant does not have). */
function checkFinishable(e: StoredExecution | undefined, executionId: string): StoredExecution {
  if (!e) throw new SvcError('not_found', `execution ${executionId} does not exist in this tenant`);
  // 'unknown' is accepted too: start-up recovery may have judged a call that then answered.
  if (e.state !== 'pending' && e.state !== 'unknown') {
    throw new SvcError(
      'conflict',
      `the outcome of execution ${executionId} is already recorded (${e.state})`,
    );
  }
  return e;
}
