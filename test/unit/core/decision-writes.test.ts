import { describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import { APPROVAL_TTL_MS } from '../../../src/core/decision/decide.js';
import type { DecisionRequest } from '../../../src/core/decision/request.js';
import { judgeSurface, surfaceToJudge, type SurfaceCheck } from '../../../src/core/decision/surface.js';
import {
  GRANT_TTL_MS,
  planDecision,
  sealedReply,
  standingReply,
  type DecisionIdKind,
  type DecisionPlanInput,
  type IdSource,
  type SealedOutcome,
} from '../../../src/core/decision/writes.js';
import type { Capability } from '../../../src/core/capability.js';

const NOW = new Date('2026-03-01T10:00:00.000Z');
const AT = NOW.toISOString();

/** Deterministic ids, counted per kind, so a test can name each one. */
function ids(): IdSource & { minted: string[] } {
  const n = new Map<string, number>();
  const minted: string[] = [];
  const f = ((p: DecisionIdKind) => {
    const i = (n.get(p) ?? 0) + 1;
    n.set(p, i);
    minted.push(`${p}_${i}`);
    return `${p}_${i}`;
  }) as IdSource & { minted: string[] };
  f.minted = minted;
  return f;
}

const caller: Actor = {
  tenantId: 'acme',
  id: 'bot',
  kind: 'agent',
  roles: [],
  managerId: null,
  certSubject: null,
  displayName: null,
  createdAt: AT,
};

function request(over: Partial<DecisionRequest> = {}): DecisionRequest {
  return {
    route: 'action',
    tenantId: 'acme',
    actorId: 'bot',
    capability: 'payments.refund',
    action: 'refund',
    taskId: 'task-1',
    step: 'step-1',
    amountMicros: 2_500_000n,
    amountSource: 'requester_estimate',
    intent: 'refund order 42',
    params: null,
    correlationId: 'corr-1',
    traceId: null,
    digest: 'd'.repeat(64),
    body: { amount_usd: 2.5, correlation_id: 'corr-1', params: { order: 42 } },
    ...over,
  };
}

const allowed = (over: Partial<Extract<SealedOutcome, { kind: 'allowed' }>> = {}): SealedOutcome => ({
  kind: 'allowed',
  tier: 1,
  amountMicros: 2_500_000n,
  determining: ['policy0'],
  ...over,
});

function plan(over: Partial<DecisionPlanInput> = {}, source = ids()) {
  return planDecision(
    { req: request(), caller, mode: 'new', outcome: allowed(), intentId: 'int_x', now: NOW, ...over },
    source,
  );
}

describe('planDecision: what each sealed outcome changes', () => {
  it('an allow with grant custody reserves, mints a grant, claims the key and journals both', () => {
    const w = plan({ custody: 'grant' });
    expect(w.reserve).toEqual({ taskId: 'task-1', amountMicros: 2_500_000n });
    expect(w.grant).toEqual({
      id: 'grt_1',
      intentId: 'int_x',
      actorId: 'bot',
      capability: 'payments.refund',
      taskId: 'task-1',
      expiresAt: new Date(NOW.getTime() + GRANT_TTL_MS).toISOString(),
      createdAt: AT,
    });
    expect(w.effectKey).toEqual({
      op: 'insert',
      state: 'claimed',
      taskId: 'task-1',
      step: 'step-1',
      intentId: 'int_x',
      requestDigest: 'd'.repeat(64),
      at: AT,
    });
    expect(w.intentWrite).toBe('insert');
    expect(w.intent).toMatchObject({ outcome: 'allowed', grantId: 'grt_1', receiptId: 'rcp_1', code: null });
    expect(w.consumeApproval).toBeUndefined();
    expect(w.admission).toBeUndefined();
    expect(w.execution).toBeUndefined();
    expect(w.openApproval).toBeUndefined();
    expect(w.journal).toMatchObject({
      kind: 'decision',
      receiptId: 'rcp_1',
      allowed: true,
      grantId: 'grt_1',
      amountMicros: 2_500_000n,
      occurredAt: AT,
    });
    expect(w.journal.record).toMatchObject({
      outcome: 'allowed',
      grant_id: 'grt_1',
      amount_usd: 2.5,
      requested_usd: 2.5,
      resumed: false,
      determining: ['policy0'],
      correlation_id: 'corr-1',
    });
    expect(w.reply.grant).toEqual({ grantId: 'grt_1', expiresAt: w.grant!.expiresAt });
  });

  it('an allow on a pass-through capability mints no grant', () => {
    const w = plan({ custody: 'pass_through' });
    expect(w.grant).toBeUndefined();
    expect(w.journal.grantId).toBe('');
    expect(w.journal.record.grant_id).toBeNull();
  });

  it('a brokered allow records the pending execution with the decision, named in the record', () => {
    const w = plan({
      req: request({ route: 'brokered' }),
      custody: 'brokered',
      brokered: { surfaceId: 'stripe', operation: 'refunds.create', credentialRef: 'cred-1' },
    });
    expect(w.grant).toBeUndefined();
    expect(w.execution).toEqual({
      id: 'exe_1',
      intentId: 'int_x',
      taskId: 'task-1',
      step: 'step-1',
      actorId: 'bot',
      capability: 'payments.refund',
      action: 'refund',
      tier: 1,
      surfaceId: 'stripe',
      operation: 'refunds.create',
      credentialRef: 'cred-1',
      createdAt: AT,
    });
    expect(w.journal.record.execution_id).toBe('exe_1');
    expect(w.reply.execution).toEqual({
      executionId: 'exe_1',
      surfaceId: 'stripe',
      operation: 'refunds.create',
      credentialRef: 'cred-1',
    });
  });

  it('an allow under execution constraints is admitted against the root', () => {
    const w = plan({ constraintsRoot: 'root-1' });
    expect(w.admission).toEqual({
      id: 'adm_1',
      rootId: 'root-1',
      taskId: 'task-1',
      intentId: 'int_x',
      actorId: 'bot',
      capability: 'payments.refund',
      amountMicros: 2_500_000n,
      createdAt: AT,
    });
  });

  it('a resumed allow consumes its approval and updates the intent', () => {
    const w = plan({ mode: 'resume', outcome: allowed({ consumeApprovalId: 'apr_9' }) });
    expect(w.consumeApproval).toEqual({ approvalId: 'apr_9', consumedAt: AT });
    expect(w.intentWrite).toBe('update');
    expect(w.intent.approvalId).toBe('apr_9');
    expect(w.journal.record).toMatchObject({ approval_id: 'apr_9', resumed: true });
    expect(w.reply.approval).toEqual({ approvalId: 'apr_9', status: 'consumed' });
    // a resume turns its own deferral into a claim, guarded by the key as it holds it
    expect(w.effectKey).toEqual({
      op: 'claim',
      taskId: 'task-1',
      step: 'step-1',
      at: AT,
      expect: { state: 'deferred', intentId: w.intentId },
    });
  });

  it('a deferral opens an approval, holds the key and commits no money', () => {
    const w = plan({
      outcome: {
        kind: 'deferred',
        reason: 'tier 3 needs approval',
        remedy: 'ask an approver',
        tier: 3,
        amountMicros: 2_500_000n,
        openApproval: true,
      },
    });
    expect(w.reserve).toBeUndefined();
    expect(w.openApproval).toEqual({
      id: 'apr_1',
      intentId: 'int_x',
      taskId: 'task-1',
      step: 'step-1',
      capability: 'payments.refund',
      action: 'refund',
      requesterId: 'bot',
      amountMicros: 2_500_000n,
      amountSource: 'requester_estimate',
      requestDigest: 'd'.repeat(64),
      // the body the digest binds, params included, correlation fields left out
      request: '{"amount_usd":2.5,"params":{"order":42}}',
      expiresAt: new Date(NOW.getTime() + APPROVAL_TTL_MS).toISOString(),
      createdAt: AT,
    });
    expect(w.effectKey).toMatchObject({ op: 'insert', state: 'deferred' });
    expect(w.journal).toMatchObject({ allowed: false, amountMicros: 0n });
    expect(w.journal.record).not.toHaveProperty('params');
    expect(w.journal.record).toMatchObject({
      outcome: 'deferred',
      amount_usd: 0,
      requested_usd: 2.5,
      approval_id: 'apr_1',
      remedy: 'ask an approver',
    });
    expect(w.reply.approval).toEqual({
      approvalId: 'apr_1',
      status: 'pending',
      expiresAt: w.openApproval!.expiresAt,
    });
  });

  it('a resumed deferral keeps its approval and leaves the key as it is', () => {
    const w = plan({
      mode: 'resume',
      outcome: {
        kind: 'deferred',
        reason: 'still waiting',
        remedy: 'ask an approver',
        tier: 3,
        amountMicros: 1n,
        openApproval: false,
        approvalId: 'apr_7',
      },
    });
    expect(w.openApproval).toBeUndefined();
    expect(w.effectKey).toBeUndefined();
    expect(w.reply.approval).toEqual({ approvalId: 'apr_7', status: 'pending' });
  });

  it('a refusal on resume drops the key; a new refusal leaves no key', () => {
    const refused: SealedOutcome = {
      kind: 'refused',
      code: 'approval_denied',
      reason: 'denied',
      tier: 3,
      amountMicros: 2_500_000n,
    };
    const resumed = plan({ mode: 'resume', outcome: refused });
    expect(resumed.effectKey).toEqual({
      op: 'drop',
      taskId: 'task-1',
      step: 'step-1',
      expect: { state: 'deferred', intentId: resumed.intentId },
    });
    expect(resumed.reserve).toBeUndefined();
    expect(resumed.intent).toMatchObject({ outcome: 'refused', code: 'approval_denied', reason: 'denied' });
    expect(resumed.journal.record).toMatchObject({ code: 'approval_denied', remedy: null, determining: [] });
    expect(plan({ outcome: refused }).effectKey).toBeUndefined();
    expect(resumed.reply).toMatchObject({ code: 'approval_denied', reason: 'denied', amountMicros: 0n });
    expect(resumed.reply).not.toHaveProperty('remedy');
  });

  it('mints ids in a fixed order from the source it is given, and none from elsewhere', () => {
    const source = ids();
    plan(
      {
        req: request({ route: 'brokered' }),
        custody: 'brokered',
        constraintsRoot: 'root-1',
        brokered: { surfaceId: 's', operation: 'o', credentialRef: 'c' },
      },
      source,
    );
    expect(source.minted).toEqual(['rcp_1', 'adm_1', 'exe_1']);
  });

  it('is pure: the same input and ids give the same plan', () => {
    expect(plan({ custody: 'grant' })).toEqual(plan({ custody: 'grant' }));
  });
});

describe('the sealed reply', () => {
  it('adds what only the append knows, and carries the very record that was hashed', () => {
    const w = plan({ custody: 'grant' });
    const sealed = sealedReply(w, { sequence: 12, receiptId: 'rcp_1', recordHash: 'h'.repeat(64) });
    expect(sealed).toMatchObject({
      kind: 'sealed',
      outcome: 'allowed',
      intentId: 'int_x',
      amountMicros: 2_500_000n,
      receipt: { receiptId: 'rcp_1', sequence: 12, recordHash: 'h'.repeat(64), occurredAt: AT },
    });
    if (sealed.kind !== 'sealed') throw new Error('unreachable');
    expect(sealed.receipt.record).toBe(w.journal.record);
  });

  it('a standing deferral answers with its stored receipt', () => {
    const s = standingReply(
      'int_x',
      {
        kind: 'deferred',
        reason: 'r',
        remedy: 'm',
        tier: 3,
        amountMicros: 5n,
        openApproval: false,
        approvalId: 'apr_1',
      },
      { receiptId: 'rcp_0', sequence: 3, recordHash: 'a'.repeat(64), record: '{"v":1}', occurredAt: AT },
    );
    expect(s).toEqual({
      kind: 'sealed',
      outcome: 'deferred',
      intentId: 'int_x',
      reason: 'r',
      remedy: 'm',
      amountMicros: 0n,
      receipt: {
        receiptId: 'rcp_0',
        sequence: 3,
        recordHash: 'a'.repeat(64),
        occurredAt: AT,
        record: { v: 1 },
      },
      approval: { approvalId: 'apr_1', status: 'pending' },
    });
  });
});

describe('the brokered surface judgement', () => {
  const cap = { custody: 'brokered', surfaceId: 'stripe', operation: 'refunds.create' } as Capability;
  const ok: SurfaceCheck = (q) =>
    q.state?.status === 'revoked' ? { ok: false, problem: 'revoked' } : { ok: true, credentialRef: 'ref-1' };

  it('judges only a brokered capability on the brokered route', () => {
    expect(surfaceToJudge(request(), cap)).toBeUndefined();
    expect(surfaceToJudge(request({ route: 'brokered' }), { ...cap, custody: 'grant' })).toBeUndefined();
    expect(surfaceToJudge(request({ route: 'brokered' }), cap)).toEqual({
      surfaceId: 'stripe',
      operation: 'refunds.create',
    });
  });

  it('gives the target, or the problem, and fails closed with no document configured', () => {
    const needed = { surfaceId: 'stripe', operation: 'refunds.create' };
    expect(judgeSurface('acme', undefined, undefined, undefined)).toEqual({ ok: true });
    expect(judgeSurface('acme', needed, ok, undefined)).toEqual({
      ok: true,
      target: { surfaceId: 'stripe', operation: 'refunds.create', credentialRef: 'ref-1' },
    });
    expect(judgeSurface('acme', needed, ok, { credentialRef: 'x', status: 'revoked' })).toEqual({
      ok: false,
      problem: 'revoked',
    });
    expect(judgeSurface('acme', needed, undefined, undefined)).toMatchObject({ ok: false });
  });
});
