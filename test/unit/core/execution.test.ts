import { describe, expect, it } from 'vitest';
import {
  finishExecution,
  INTERRUPTED,
  sealInterrupted,
  type ExecutionFinish,
  type ExecutionOps,
  type ExecutionState,
  type StoredExecution,
} from '../../../src/core/execution.js';
import type { ExecutionOutcome } from '../../../src/core/records/execution-record.js';
import { runSync } from '../../../src/core/use-case.js';
import type { JournalAppend } from '../../../src/evidence/journal-append.js';
import { refusal } from '../../helpers/coded-error.js';
import { appendTo } from '../../helpers/memory-journal.js';

const NOW = new Date('2026-03-01T10:00:00.000Z');
const clock = () => NOW;

const execution = (state: ExecutionState): StoredExecution => ({
  tenantId: 'acme',
  id: 'exe_1',
  intentId: 'int_1',
  taskId: 't1',
  step: 's1',
  actorId: 'bot',
  capability: 'crm.write',
  action: 'write',
  tier: 2,
  surfaceId: 'crm',
  operation: 'contacts.create',
  credentialRef: 'env:CRM',
  state,
});

const answered: ExecutionOutcome & { sentDigest: string | null } = {
  outcome: 'succeeded',
  sent: true,
  status: 201,
  effectId: 'contact-42',
  digest: 'ab'.repeat(32),
  bytes: 12,
  error: null,
  reason: 'the provider answered 201',
  sentDigest: 'cd'.repeat(32),
};

/** One execution `exe_1`; `finish` behaves as the guarded UPDATE does. */
function memory(e: StoredExecution | undefined) {
  const state = { row: e && { ...e }, finished: [] as ExecutionFinish[], appended: [] as JournalAppend[] };
  const ops: ExecutionOps = {
    execution: (_t, id) => (id === 'exe_1' ? state.row && { ...state.row } : undefined),
    finish: (_t, id, expected, f) => {
      if (id !== 'exe_1' || state.row?.state !== expected) return 0;
      state.row.state = f.state;
      state.finished.push(f);
      return 1;
    },
    append: appendTo(state.appended),
  };
  return { ops, state };
}

describe("an execution's outcome: the use case, once for both stores", () => {
  it('records the provider’s answer to a pending call, or to one recovery judged unknown, with its journal record', () => {
    for (const from of ['pending', 'unknown'] as const) {
      const { ops, state } = memory(execution(from));
      const receipt = runSync(finishExecution('acme', 'exe_1', answered, clock), ops);
      expect(state.finished).toEqual([
        {
          state: 'succeeded',
          status: 201,
          effectId: 'contact-42',
          digest: 'ab'.repeat(32),
          receiptId: receipt.receiptId,
          at: NOW.toISOString(),
        },
      ]);
      expect(state.appended).toHaveLength(1);
      expect(state.appended[0]).toMatchObject({
        kind: 'execution',
        receiptId: receipt.receiptId,
        intentId: 'int_1',
      });
      expect(state.appended[0]!.record).toMatchObject({ sent_digest: 'cd'.repeat(32), recovered: false });
    }
  });

  it('refuses an execution the tenant does not have, and an outcome recorded already', () => {
    let err = refusal(finishExecution('acme', 'exe_1', answered, clock), memory(undefined).ops);
    expect(err).toMatchObject({
      kind: 'not_found',
      message: 'execution exe_1 does not exist in this tenant',
    });
    for (const done of ['succeeded', 'failed'] as const) {
      const { ops, state } = memory(execution(done));
      err = refusal(finishExecution('acme', 'exe_1', answered, clock), ops);
      expect(err).toMatchObject({
        kind: 'conflict',
        message: `the outcome of execution exe_1 is already recorded (${done})`,
      });
      expect(state.appended).toEqual([]);
    }
  });

  it('seals an interrupted call as outcome unknown, recovered', () => {
    const { ops, state } = memory(execution('pending'));
    runSync(sealInterrupted(execution('pending'), clock), ops);
    expect(state.row?.state).toBe('unknown');
    expect(state.appended[0]!.record).toMatchObject({ recovered: true, reason: INTERRUPTED.reason });
  });

  it('fails with a coded conflict when the execution changed between the read and the guarded write', () => {
    const { ops, state } = memory(execution('pending'));
    // Another writer records an outcome just before this one's write.
    const raced: ExecutionOps = {
      ...ops,
      finish: (t, id, expected, f) => {
        ops.finish(t, id, expected, { ...f, state: 'failed' });
        return ops.finish(t, id, expected, f);
      },
    };
    expect(refusal(finishExecution('acme', 'exe_1', answered, clock), raced)).toMatchObject({
      kind: 'conflict',
      message:
        'the outcome of execution exe_1 changed 0 rows, not one: the state it was decided on no longer holds; retry',
    });
    expect(state.row?.state).toBe('failed');
    expect(state.appended).toEqual([]);
  });
});
