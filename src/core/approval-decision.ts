import type { Appended, JournalAppend } from '../evidence/journal-append.js';
import type { Actor } from './actor.js';
import {
  decisionRefusal,
  type ApprovalChannel,
  type ApprovalDecision,
  type ApprovalFacts,
} from './approval.js';
import { SvcError } from './errors.js';
import { checkGuarded } from './guarded-write.js';
import type { Micros } from './money.js';
import { emitEvent, type OutboxOps } from './notify/outbox.js';
import { approvalDecidedData } from './notify/payloads.js';
import { approvalRecord } from './records/approval-record.js';
import { asker, type UseCase } from './use-case.js';

/** A human's decision on an approval, from any channel. */
export interface ApprovalDecisionInput {
  tenantId: string;
  approvalId: string;
  /** a registered actor of the tenant, resolved by the channel (credential, chat user id, …) */
  deciderId: string;
  decision: ApprovalDecision;
  note: string | null;
  channel: ApprovalChannel;
  at: Date;
}

/** An approval as it is judged, with its capability as registered now. */
export interface ApprovalToDecide extends ApprovalFacts {
  intentId: string;
  taskId: string;
  step: string;
  action: string;
  /** the capability's named approvers; none when it is no longer registered */
  namedApprovers: string[];
  /** the capability's tier; null when it is no longer registered */
  tier: number | null;
  amountMicros: Micros;
  requestDigest: string;
  /** the requester's short description, when the intent carries one */
  intent: string | null;
  createdAt: string;
}

/**
 * The decision's write. It carries the state it was judged on: the approval is changed only
 * while it is still `expect.status` and unexpired at `decidedAt`.
 */
export interface ApprovalDecisionWrite {
  tenantId: string;
  approvalId: string;
  status: 'approved' | 'denied';
  decidedBy: string;
  decidedAt: string;
  channel: ApprovalChannel;
  note: string | null;
  expect: { status: 'pending' };
}

/**
 * The store operations an approval decision asks for, all inside the one transaction that
 * records it (the tenant's lock, or SQLite's single writer, taken before the first read).
 * `V` is the approval as the store's readers see it; core only hands it back.
 */
export interface ApprovalDecisionOps<V> extends OutboxOps {
  approval(tenantId: string, approvalId: string): ApprovalToDecide | undefined;
  /** a registered actor of the tenant */
  actor(tenantId: string, actorId: string): Actor | undefined;
  /** the guarded write: how many rows it changed */
  decide(write: ApprovalDecisionWrite): number;
  append(record: JournalAppend, at: string): Appended;
  /** the approval as its readers see it once decided */
  decided(tenantId: string, approvalId: string, now: Date): V;
}

export interface ApprovalDecided<V> {
  approval: V;
  receiptId: string;
  sequence: number;
}

/**
 * An approval decided by a human, once for every channel and both stores: who may decide it
 * and whether it still takes a decision (core/approval.ts `decisionRefusal`), a capability
 * that is no longer registered, the guarded write, the journal record, and the approval as
 * its readers now see it.
 */
export function* approvalDecision<V>(
  input: ApprovalDecisionInput,
): UseCase<ApprovalDecisionOps<V>, ApprovalDecided<V>> {
  const ask = asker<ApprovalDecisionOps<V>>();
  const { tenantId, approvalId } = input;
  const a = yield* ask('approval', tenantId, approvalId);
  if (!a) throw new SvcError('not_found', 'no such approval');
  const decider = yield* ask('actor', tenantId, input.deciderId);
  if (!decider) {
    throw new SvcError('forbidden', `${input.deciderId} is not a registered actor of this tenant`, {
      code: 'not_an_approver',
    });
  }
  const refusal = decisionRefusal(a, decider, a.namedApprovers, input.at);
  if (refusal) throw refusal;
  if (a.tier === null) {
    throw new SvcError('conflict', `capability ${a.capability} is no longer registered`, {
      code: 'unknown_capability',
    });
  }
  const at = input.at.toISOString();
  const changed = yield* ask('decide', {
    tenantId,
    approvalId,
    status: input.decision === 'approve' ? 'approved' : 'denied',
    decidedBy: decider.id,
    decidedAt: at,
    channel: input.channel,
    note: input.note,
    expect: { status: 'pending' },
  });
  checkGuarded('the approval decision', changed);
  const record = approvalRecord({
    tenantId,
    approval: {
      id: a.id,
      intentId: a.intentId,
      taskId: a.taskId,
      step: a.step,
      capability: a.capability,
      action: a.action,
      tier: a.tier,
      requesterId: a.requesterId,
    },
    deciderId: decider.id,
    decision: input.decision,
    note: input.note,
    channel: input.channel,
    at,
  });
  const appended = yield* ask('append', record, at);
  yield* emitEvent(tenantId, 'approval.decided', at, () =>
    approvalDecidedData(a, {
      status: input.decision === 'approve' ? 'approved' : 'denied',
      decidedBy: decider.id,
      decidedAt: at,
      channel: input.channel,
      receiptId: record.receiptId,
    }),
  );
  return {
    approval: yield* ask('decided', tenantId, approvalId, input.at),
    receiptId: record.receiptId,
    sequence: appended.sequence,
  };
}
