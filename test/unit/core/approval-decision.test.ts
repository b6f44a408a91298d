import { memoryOutbox } from '../../helpers/memory-outbox.js';
import type { DecisionEventOps } from '../../../src/core/notify/decision-events.js';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import {
  approvalDecision,
  type ApprovalDecisionInput,
  type ApprovalDecisionOps,
  type ApprovalDecisionWrite,
  type ApprovalToDecide,
} from '../../../src/core/approval-decision.js';
import { runSync } from '../../../src/core/use-case.js';
import type { JournalAppend } from '../../../src/evidence/journal-append.js';
import { actorRecord } from '../../helpers/registry-records.js';

/**
 * The approval decision without a database: an in-memory store answers the operations the
 * use case asks for and records the writes, so every refusal is shown to write nothing.
 */

const at = new Date('2026-06-01T12:00:00.000Z');

const actor = (id: string, kind: Actor['kind'], roles: Actor['roles'] = []): Actor =>
  actorRecord('acme', id, '2026-01-01T00:00:00.000Z', { kind, roles });

const pending: ApprovalToDecide = {
  id: 'apr_1',
  status: 'pending',
  requesterId: 'bot',
  capability: 'pay.send',
  decidedBy: null,
  decidedAt: null,
  expiresAt: '2026-06-02T12:00:00.000Z',
  intentId: 'int_1',
  taskId: 'task-1',
  step: 'pay-1',
  action: 'send',
  namedApprovers: ['carol'],
  tier: 4,
  amountMicros: 120_000_000n,
  requestDigest: 'ab'.repeat(32),
  intent: 'refund order 1042',
  createdAt: '2026-06-01T12:00:00.000Z',
};

const people = [
  actor('bob', 'human', ['approver']),
  actor('carol', 'human'),
  actor('erin', 'human'),
  actor('bot', 'agent'),
  actor('olive', 'human', ['operator']),
  actor('bot2', 'agent'),
];

class MemoryApprovals implements ApprovalDecisionOps<{ view: ApprovalToDecide }> {
  readonly writes: ApprovalDecisionWrite[] = [];
  readonly journal: JournalAppend[] = [];
  /** what the guarded write finds: another writer may have changed the row since the read */
  changedRows = 1;
  readonly outbox = memoryOutbox();
  subscribers = () => this.outbox.ops.subscribers('acme');
  writeEvent = (...a: Parameters<DecisionEventOps['writeEvent']>) => this.outbox.ops.writeEvent(...a);

  constructor(private readonly approvals: ApprovalToDecide[]) {}

  approval(tenantId: string, approvalId: string) {
    return this.approvals.find((a) => tenantId === 'acme' && a.id === approvalId);
  }
  actor(tenantId: string, actorId: string) {
    return people.find((p) => p.tenantId === tenantId && p.id === actorId);
  }
  decide(w: ApprovalDecisionWrite) {
    this.writes.push(w);
    return this.changedRows;
  }
  append(record: JournalAppend) {
    this.journal.push(record);
    return { sequence: this.journal.length + 6, receiptId: record.receiptId, recordHash: 'h' };
  }
  decided(_tenantId: string, approvalId: string) {
    return { view: this.approval('acme', approvalId)! };
  }
}

const input = (o: Partial<ApprovalDecisionInput> = {}): ApprovalDecisionInput => ({
  tenantId: 'acme',
  approvalId: 'apr_1',
  deciderId: 'bob',
  decision: 'approve',
  note: 'ok',
  channel: 'api',
  at,
  ...o,
});

function decide(store: MemoryApprovals, i: ApprovalDecisionInput) {
  return runSync(approvalDecision<{ view: ApprovalToDecide }>(i), store);
}

/** The coded error a decision fails with, after checking it wrote nothing. */
function refusal(approval: ApprovalToDecide | undefined, i: ApprovalDecisionInput) {
  const store = new MemoryApprovals(approval ? [approval] : []);
  let caught: unknown;
  try {
    decide(store, i);
  } catch (err) {
    caught = err;
  }
  expect(store.writes).toEqual([]);
  expect(store.journal).toEqual([]);
  const { kind, code, reason, remedy } = caught as Record<string, unknown>;
  return { kind, code, reason, remedy };
}

describe('the approval decision use case', () => {
  it('decides through one guarded write that names the state it was judged on, then journals it', () => {
    const store = new MemoryApprovals([pending]);
    const decided = decide(
      store,
      input({ deciderId: 'carol', decision: 'deny', note: null, channel: 'chat' }),
    );
    expect(store.writes).toEqual([
      {
        tenantId: 'acme',
        approvalId: 'apr_1',
        status: 'denied',
        decidedBy: 'carol',
        decidedAt: at.toISOString(),
        channel: 'chat',
        note: null,
        expect: { status: 'pending' },
      },
    ]);
    expect(store.journal).toHaveLength(1);
    const [record] = store.journal;
    expect(record).toMatchObject({
      tenantId: 'acme',
      kind: 'approval',
      intentId: 'int_1',
      actorId: 'carol',
      tier: 4,
      allowed: false,
      occurredAt: at.toISOString(),
      record: {
        approval_id: 'apr_1',
        requester_id: 'bot',
        effect_key_step: 'pay-1',
        action: 'send',
        decision: 'deny',
        outcome: 'denied',
        channel: 'chat',
      },
    });
    expect(decided).toEqual({ approval: { view: pending }, receiptId: record!.receiptId, sequence: 7 });
    expect(decide(new MemoryApprovals([pending]), input()).approval.view).toBe(pending);
  });

  it('refuses an unknown approval and an unregistered decider, in that order', () => {
    expect(refusal(undefined, input({ deciderId: 'nobody' }))).toEqual({
      kind: 'not_found',
      code: 'not_found',
      reason: 'no such approval',
      remedy: undefined,
    });
    expect(refusal(pending, input({ deciderId: 'nobody' }))).toEqual({
      kind: 'forbidden',
      code: 'not_an_approver',
      reason: 'nobody is not a registered actor of this tenant',
      remedy: undefined,
    });
  });

  it('refuses whom core/approval.ts refuses: a bystander, the requester, one who is not an approver', () => {
    expect(refusal(pending, input({ deciderId: 'erin' }))).toMatchObject({
      kind: 'not_found',
      code: 'not_found',
      reason: 'no such approval',
    });
    expect(refusal({ ...pending, requesterId: 'bob' }, input())).toMatchObject({
      kind: 'forbidden',
      code: 'self_approval',
      reason: 'the requesting actor never decides its own approval',
    });
    expect(refusal(pending, input({ deciderId: 'olive' }))).toMatchObject({
      kind: 'forbidden',
      code: 'not_an_approver',
      reason:
        'olive may not decide approvals for pay.send: only registered humans with the approver role or named by the capability',
    });
    // named by the capability, but not a human
    expect(refusal({ ...pending, namedApprovers: ['bot2'] }, input({ deciderId: 'bot2' }))).toMatchObject({
      kind: 'forbidden',
      code: 'not_an_approver',
    });
  });

  it('refuses an expired approval and one already decided: the first decision wins', () => {
    expect(refusal({ ...pending, expiresAt: at.toISOString() }, input())).toMatchObject({
      kind: 'conflict',
      code: 'approval_expired',
      reason: `approval apr_1 expired at ${at.toISOString()} and can no longer be decided`,
    });
    const denied = {
      ...pending,
      status: 'denied' as const,
      decidedBy: 'carol',
      decidedAt: '2026-06-01T11:00:00.000Z',
    };
    expect(refusal(denied, input())).toMatchObject({
      kind: 'conflict',
      code: 'already_decided',
      reason:
        'approval apr_1 is already denied by carol at 2026-06-01T11:00:00.000Z; the first decision wins',
    });
  });

  it('refuses a decision on a capability that is no longer registered, after who may decide', () => {
    const gone = { ...pending, namedApprovers: [], tier: null };
    expect(refusal(gone, input())).toEqual({
      kind: 'conflict',
      code: 'unknown_capability',
      reason: 'capability pay.send is no longer registered',
      remedy: undefined,
    });
    // carol was named by the capability that is gone: she no longer decides
    expect(refusal(gone, input({ deciderId: 'carol' }))).toMatchObject({ code: 'not_found' });
  });

  it('fails with a coded conflict, and journals nothing, when the guarded write does not change one row', () => {
    for (const changedRows of [0, 2]) {
      const store = new MemoryApprovals([pending]);
      store.changedRows = changedRows;
      expect(() => decide(store, input())).toThrow(
        expect.objectContaining({
          kind: 'conflict',
          code: 'conflict',
          reason: `the approval decision changed ${changedRows} rows, not one: the state it was decided on no longer holds; retry`,
        }),
      );
      expect(store.writes).toHaveLength(1);
      expect(store.journal).toEqual([]);
    }
  });
});
