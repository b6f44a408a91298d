/**
 * The refusal table over core's decision pipeline, with no database: `decision()` driven by
 * `runSync` (the runner SQLite uses) over a tenant held in memory (test/helpers/decision-memory.ts),
 * with the daemon's real policy compile (PolicyCache over src/policy/) and the real execution
 * constraints (`admits`). One row per way each refusal and conflict code is reached, asserting
 * the exact code, reason and remedy the caller reads; the table fails when core gains a code
 * without a row. The integration table in test/integration/decision.test.ts checks the same
 * refusals through HTTP and the SQLite adapter; the store contract checks the order rows below
 * on both adapters (test/contract/cases/refusal-order.ts).
 */
import { describe, expect, it } from 'vitest';
import { admits } from '../../../src/core/constraints.js';
import { CONFLICT_CODES, REFUSAL_CODES } from '../../../src/core/decision/outcome.js';
import { decision, type PipelineRules } from '../../../src/core/decision/pipeline.js';
import type { DecisionRequest } from '../../../src/core/decision/request.js';
import type { Sealed } from '../../../src/core/decision/sealed.js';
import type { SurfaceCheck } from '../../../src/core/decision/surface.js';
import { runSync } from '../../../src/core/use-case.js';
import { PolicyCache } from '../../../src/daemon/policy-cache.js';
import {
  AT,
  bot,
  deferral,
  memoryOps,
  NOW,
  task,
  world,
  type MemoryWorld,
} from '../../helpers/decision-memory.js';
import { decisionRequest, type RequestSpec } from '../../helpers/decision-request.js';
import { ORDER_CASES, type OrderCaseId } from '../../helpers/refusal-order.js';

/** One decision to make: the request, how it is sent, and what it is judged by besides the state. */
interface Attempt {
  req?: RequestSpec;
  mode?: 'new' | 'resume';
  surface?: SurfaceCheck;
  openApprovals?: PipelineRules['openApprovals'];
}

function run(w: MemoryWorld, a: Attempt): Sealed {
  const rules: PipelineRules = {
    policy: new PolicyCache(),
    constraints: admits,
    ...(a.surface ? { surface: a.surface } : {}),
    ...(a.openApprovals ? { openApprovals: a.openApprovals } : {}),
  };
  return runSync(
    decision(decisionRequest(a.req), bot, a.mode ?? 'new', rules, () => NOW),
    memoryOps(w),
  );
}

/** A surface check that reads the stored state it is handed, as the broker's does. */
const surfaceFromState: SurfaceCheck = (q) =>
  q.state?.status === 'revoked'
    ? { ok: false, problem: `surface ${q.surfaceId} is revoked` }
    : { ok: true, credentialRef: q.state?.credentialRef ?? 'env:CRM' };

const NO_CHANGE = 'the plan can never be changed: start a new root task with its own plan';
const pay = { capability: 'pay.send' };

interface Row {
  name: string;
  arrange?: (w: MemoryWorld) => void;
  attempt?: Attempt;
  /** a resume: the standing deferral of the request, waiting on its approval as given */
  deferred?: Parameters<typeof deferral>[2];
  code: (typeof REFUSAL_CODES)[number];
  reason: string;
  remedy: string | undefined;
}

const plan = (p: unknown) => (w: MemoryWorld) => void w.plans.set('t1', p);

const REFUSALS: Row[] = [
  {
    name: 'a capability the tenant never registered',
    attempt: { req: { capability: 'nope.cap' } },
    code: 'unknown_capability',
    reason: 'capability nope.cap is not registered in this tenant',
    remedy:
      'GET /v1/capabilities lists what you may use; an operator registers it with `svc capability register --tenant acme --name nope.cap`',
  },
  {
    name: 'a verb the capability does not allow',
    attempt: { req: { action: 'read' } },
    code: 'action_not_allowed',
    reason: 'capability crm.write does not allow the action read',
    remedy: 'use one of: write',
  },
  {
    name: 'a brokered capability sent to /v1/action',
    attempt: { req: { capability: 'crm.sync' } },
    code: 'wrong_route',
    reason: 'capability crm.sync is brokered: the daemon executes it',
    remedy: 'send the request to POST /v1/brokered',
  },
  {
    name: 'a capability the agent holds itself sent to /v1/brokered',
    attempt: { req: { route: 'brokered' } },
    code: 'wrong_route',
    reason: 'capability crm.write is not brokered',
    remedy: 'send the request to POST /v1/action',
  },
  {
    name: 'a task that does not exist',
    attempt: { req: { taskId: 'missing' } },
    code: 'unknown_task',
    reason: 'task missing does not exist in this tenant',
    remedy: 'ask the task sponsor for a valid task id (`svc task list --tenant acme` lists them)',
  },
  {
    name: 'a draft task (no plan installed yet)',
    arrange: (w) => void w.tasks.set('t1', task('t1', { status: 'draft' })),
    code: 'task_not_active',
    reason: 'task t1 is draft',
    remedy:
      'the sponsor activates it by installing its execution constraints: `svc constraints install t1 --plan plan.json`',
  },
  {
    name: 'a closed task',
    arrange: (w) => void w.tasks.set('t1', task('t1', { status: 'closed', closedAt: AT })),
    code: 'task_not_active',
    reason: 'task t1 is closed',
    remedy: 'closed tasks take no new actions; use an active task',
  },
  {
    name: 'a task with agents assigned, the caller not among them',
    arrange: (w) => void w.tasks.set('t1', task('t1', { actors: ['eve'] })),
    code: 'task_not_assigned',
    reason: 'bot is not assigned to task t1',
    remedy: 'ask the sponsor (alice) to assign it',
  },
  {
    name: 'no permission, and the capability is not requestable',
    arrange: (w) => void w.permissions.delete('bot/crm.write'),
    code: 'not_permitted',
    reason: 'bot holds no permission or entitlement for crm.write',
    remedy:
      'ask an administrator to grant it: `svc permission grant --tenant acme --actor bot --capability crm.write`',
  },
  {
    name: 'only an expired and a revoked entitlement for a requestable capability',
    arrange: (w) => {
      w.entitlements.push(
        { actorId: 'bot', capability: 'crm.export', expiresAt: AT, revokedAt: null },
        { actorId: 'bot', capability: 'crm.export', expiresAt: '2026-03-02T00:00:00.000Z', revokedAt: AT },
      );
    },
    attempt: { req: { capability: 'crm.export' } },
    code: 'not_permitted',
    reason: 'bot holds no permission or entitlement for crm.export',
    remedy: 'request access: `svc access request crm.export --reason <why> --duration <8h>`',
  },
  {
    name: 'a brokered capability on a daemon without an integration-operations document',
    attempt: { req: { capability: 'crm.sync', route: 'brokered' } },
    code: 'surface_unavailable',
    reason: 'no integration-operations document is configured on this daemon',
    remedy:
      'ask an administrator about the integration surface (`svc integration-ops surfaces` shows its state)',
  },
  {
    name: 'a brokered capability whose surface the store holds revoked',
    arrange: (w) => void w.surfaces.set('crm', { credentialRef: 'env:CRM', status: 'revoked' }),
    attempt: { req: { capability: 'crm.sync', route: 'brokered' }, surface: surfaceFromState },
    code: 'surface_unavailable',
    reason: 'surface crm is revoked',
    remedy:
      'ask an administrator about the integration surface (`svc integration-ops surfaces` shows its state)',
  },
  {
    name: "the root's execution window has not opened",
    arrange: plan({ not_before: '2026-03-01T11:00:00.000Z' }),
    code: 'constraints_violation',
    reason: "the task's execution window opens at 2026-03-01T11:00:00.000Z",
    remedy: 'send the request again at or after 2026-03-01T11:00:00.000Z',
  },
  {
    name: "the root's execution window closed at this instant",
    arrange: plan({ not_after: AT }),
    code: 'constraints_violation',
    reason: `the task's execution window closed at ${AT}`,
    remedy: NO_CHANGE,
  },
  {
    name: 'the plan admits other actors',
    arrange: plan({ actors: ['eve'] }),
    code: 'constraints_violation',
    reason: "the task's execution constraints do not admit actor bot",
    remedy: 'only eve may act in this task',
  },
  {
    name: 'a child task under a root whose plan admits other capabilities',
    arrange: (w) => {
      w.tasks.set('c1', task('c1', { parentId: 't1', rootId: 't1' }));
      w.plans.set('t1', { capabilities: ['pay.send'] });
    },
    attempt: { req: { taskId: 'c1' } },
    code: 'constraints_violation',
    reason: "the task's execution constraints do not admit capability crm.write",
    remedy: 'use one of: pay.send',
  },
  {
    name: 'an amount above the bound per action',
    arrange: plan({ max_amount_usd_per_action: 0.5 }),
    code: 'constraints_violation',
    reason: "1 USD is above the task's bound of 0.5 USD per action",
    remedy: 'lower amount_usd to at most 0.5',
  },
  {
    name: 'every admission the plan allows already made',
    arrange: (w) => {
      w.plans.set('t1', { max_actions: 2 });
      w.admissions.push({ rootId: 't1', amountMicros: 1n }, { rootId: 't1', amountMicros: 1n });
    },
    code: 'constraints_violation',
    reason: "the task's execution constraints admit 2 actions and all were admitted",
    remedy: NO_CHANGE,
  },
  {
    name: "an amount beyond what the plan's total has left",
    arrange: (w) => {
      w.plans.set('t1', { max_total_usd: 3 });
      w.admissions.push({ rootId: 't1', amountMicros: 2_500_000n });
    },
    code: 'constraints_violation',
    reason:
      "the task's execution constraints admit 3 USD in total; 0.5 USD is left and this action needs 1 USD",
    remedy: 'lower amount_usd to at most 0.5',
  },
  {
    name: 'a stored plan that no longer reads as one (fails closed)',
    arrange: plan({ max_actions: 'many' }),
    code: 'constraints_violation',
    reason: 'the execution constraints of the task cannot be read',
    remedy: undefined,
  },
  {
    name: 'a tenant with no policy set',
    arrange: (w) => void (w.policy = null),
    code: 'no_policy',
    reason: 'tenant acme has no policy set, so every action is denied',
    remedy: 'install one with `svc policy set --tenant acme --file policy.cedar`',
  },
  {
    name: 'a forbid whose @reason and @remedy become the refusal',
    arrange: (w) =>
      void (w.policy = `permit (principal, action, resource);
@reason("writes over 0.5 USD need a cheaper plan")
@remedy("lower amount_usd to 0.5 or less")
forbid (principal, action == Action::"write", resource) when { context.amount_micros > 500000 };`),
    code: 'policy_denied',
    reason: 'writes over 0.5 USD need a cheaper plan',
    remedy: 'lower amount_usd to 0.5 or less',
  },
  {
    name: 'a policy with no permit for the request',
    arrange: (w) => void (w.policy = 'permit (principal, action, resource) when { context.tier > 5 };'),
    code: 'policy_denied',
    reason: 'no policy permits bot to write crm.write',
    remedy: 'ask an operator to permit action "write" on capability "crm.write" in tenant acme\'s policy set',
  },
  {
    name: 'a stored policy that no longer validates against the registered verbs (fails closed)',
    arrange: (w) => void (w.policy = 'permit (principal, action == Action::"delete", resource);'),
    code: 'policy_denied',
    reason: 'the tenant policy no longer validates against its registered capabilities',
    remedy: 'check it with svc policy validate --tenant acme and install a corrected one',
  },
  {
    name: 'an amount above what the task has left, the raise named exactly',
    arrange: (w) => void w.tasks.set('t1', task('t1', { reservedMicros: 40_000_000n })),
    attempt: { req: { amountUsd: 150 } },
    code: 'budget_exceeded',
    reason: 'task t1 has 60 USD left; this action needs 150 USD',
    remedy: 'raise the budget of task t1 by 90 USD: svc task budget --tenant acme --id t1 --set 190',
  },
  {
    name: 'a resume whose approval was denied',
    attempt: { req: pay, mode: 'resume' },
    deferred: { status: 'denied' },
    code: 'approval_denied',
    reason: 'approval apr_1 was denied',
    remedy: undefined,
  },
  {
    name: 'a resume whose approval was approved but expired at this instant',
    attempt: { req: pay, mode: 'resume' },
    deferred: { status: 'approved', expiresAt: AT },
    code: 'approval_expired',
    reason: `approval apr_1 expired at ${AT}`,
    remedy: 'send the request again with a new effect_key_step to ask anew',
  },
  {
    name: 'a resume whose approval expired while pending',
    attempt: { req: pay, mode: 'resume' },
    deferred: { status: 'pending', expiresAt: '2026-03-01T09:59:59.999Z' },
    code: 'approval_expired',
    reason: 'approval apr_1 expired at 2026-03-01T09:59:59.999Z',
    remedy: 'send the request again with a new effect_key_step to ask anew',
  },
  {
    name: 'a resume whose approval was already consumed',
    attempt: { req: pay, mode: 'resume' },
    deferred: { status: 'consumed' },
    code: 'approval_mismatch',
    reason: 'approval apr_1 does not bind this request (already used)',
    remedy: undefined,
  },
  {
    name: 'a resume whose approval was given for another amount (the default estimate changed)',
    arrange: (w) =>
      void w.capabilities.set('pay.send', { ...w.capabilities.get('pay.send')!, costMicros: 3_000_000n }),
    attempt: { req: pay, mode: 'resume' },
    deferred: { status: 'approved', amountMicros: 2_000_000n },
    code: 'approval_mismatch',
    reason: 'approval apr_1 does not bind this request (different body or amount)',
    remedy: undefined,
  },
  {
    name: 'a resume whose approval binds another request digest',
    attempt: { req: pay, mode: 'resume' },
    deferred: { status: 'approved', requestDigest: 'f'.repeat(64) },
    code: 'approval_mismatch',
    reason: 'approval apr_1 does not bind this request (different body or amount)',
    remedy: undefined,
  },
  {
    name: 'one approval more than a requester may hold open',
    arrange: (w) => void (w.openApprovals = { byActor: 50, byTask: 0 }),
    attempt: { req: pay },
    code: 'open_approvals_limit',
    reason:
      'bot already has 50 open approvals in this tenant (at most 50 per requester): no further approval is opened until one is decided or expires',
    remedy:
      'ask an approver to decide the open approvals (`svc approvals list --status pending`), then send the same request again with the same effect_key_step',
  },
  {
    name: 'one approval more than a task may hold open (a capability at the approval tier)',
    arrange: (w) => {
      w.capabilities.set('crm.write', { ...w.capabilities.get('crm.write')!, tier: 3 });
      w.openApprovals = { byActor: 49, byTask: 20 };
    },
    code: 'open_approvals_limit',
    reason:
      'task t1 already has 20 open approvals (at most 20 per task): no further approval is opened until one is decided or expires',
    remedy:
      'ask an approver to decide the open approvals (`svc approvals list --status pending`), then send the same request again with the same effect_key_step',
  },
];

interface ConflictRow {
  name: string;
  arrange: (w: MemoryWorld, req: DecisionRequest) => void;
  attempt?: Attempt;
  code: (typeof CONFLICT_CODES)[number];
  reason: string;
  remedy: string;
  prior: string;
}

const claimed = (w: MemoryWorld, req: DecisionRequest, state: 'claimed' | 'deferred', outcome: string) =>
  void w.effectKeys.set(`${req.taskId}/${req.step}`, {
    state,
    intentId: 'int_prior',
    actorId: 'bot',
    requestDigest: req.digest,
    route: 'action',
    outcome,
    approvalId: null,
  });

const CONFLICTS: ConflictRow[] = [
  {
    name: 'an effect key already claimed',
    arrange: (w, req) => claimed(w, req, 'claimed', 'allowed'),
    code: 'duplicate_effect',
    reason:
      'effect key t1/s1 is already claimed by intent int_prior (allowed); a claim is not proof the effect happened',
    remedy:
      'inspect the original intent with `svc receipts list --task t1`; do not use a new effect key to get past this',
    prior: 'allowed',
  },
  {
    name: 'an effect key with a standing deferral, sent anew',
    arrange: (w, req) => claimed(w, req, 'deferred', 'deferred'),
    code: 'deferral_pending',
    reason: 'effect key t1/s1 has a standing deferral (intent int_prior)',
    remedy: 'after its condition changes, POST /v1/action/resume with the same body',
    prior: 'deferred',
  },
  {
    name: 'a resume with another body',
    arrange: (w) => deferral(w, decisionRequest(pay), { status: 'approved' }),
    attempt: { req: { ...pay, amountUsd: 1.5 }, mode: 'resume' },
    code: 'request_mismatch',
    reason: 'the body differs from the deferred request; a resume must repeat it exactly',
    remedy: 'resend the deferred body unchanged (correlation_id and trace_id may differ)',
    prior: 'deferred',
  },
];

describe('the refusal table over the core pipeline (no database)', () => {
  it.each(REFUSALS.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const w = world();
    row.arrange?.(w);
    if (row.deferred) deferral(w, decisionRequest(row.attempt?.req), row.deferred);
    const mode = row.attempt?.mode ?? 'new';
    const sealed = run(w, row.attempt ?? {});
    expect(sealed).toMatchObject({
      kind: 'sealed',
      outcome: 'refused',
      code: row.code,
      reason: row.reason,
      amountMicros: 0n,
    });
    expect(sealed.kind === 'sealed' ? sealed.remedy : 'not sealed').toBe(row.remedy);
    // sealed: one journal record with the same code, reason and remedy, and nothing reserved,
    // admitted, granted or opened; a refused resume gives its deferral's key back
    expect(w.applied).toHaveLength(1);
    const writes = w.applied[0]!;
    expect(writes.journal.record).toMatchObject({
      outcome: 'refused',
      allowed: false,
      code: row.code,
      reason: row.reason,
      remedy: row.remedy ?? null,
      amount_usd: 0,
    });
    expect(writes).toMatchObject({
      reserve: undefined,
      admission: undefined,
      grant: undefined,
      execution: undefined,
      openApproval: undefined,
      consumeApproval: undefined,
    });
    expect(writes.effectKey).toEqual(
      mode === 'resume'
        ? { op: 'drop', taskId: 't1', step: 's1', expect: { state: 'deferred', intentId: 'int_prior' } }
        : undefined,
    );
  });

  it.each(CONFLICTS.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const w = world();
    row.arrange(w, decisionRequest(row.attempt?.req));
    const sealed = run(w, row.attempt ?? {});
    expect(sealed).toEqual({
      kind: 'conflict',
      code: row.code,
      reason: row.reason,
      remedy: row.remedy,
      intentId: 'int_prior',
      prior: row.prior,
    });
    expect(w.applied).toEqual([]);
  });

  it('has a row for every refusal and conflict code core declares', () => {
    expect(new Set(REFUSALS.map((r) => r.code))).toEqual(new Set(REFUSAL_CODES));
    expect(new Set(CONFLICTS.map((r) => r.code))).toEqual(new Set(CONFLICT_CODES));
  });

  it('the default world allows the default request, so each row refuses for its own cause alone', () => {
    const w = world();
    const sealed = run(w, {});
    expect(sealed).toMatchObject({ kind: 'sealed', outcome: 'allowed', amountMicros: 1_000_000n });
    const resumed = world();
    deferral(resumed, decisionRequest(pay), { status: 'approved' });
    expect(run(resumed, { req: pay, mode: 'resume' })).toMatchObject({
      outcome: 'allowed',
      approval: { approvalId: 'apr_1', status: 'consumed' },
    });
  });
});

/**
 * The order rows: each case built with both causes (`wins` expected) and with the winning
 * cause removed (`over` expected). `fixed` says which.
 */
const ORDER: Record<OrderCaseId, (w: MemoryWorld, fixed: boolean) => Attempt> = {
  'capability-before-task': (_w, fixed) => ({
    req: { capability: fixed ? 'crm.write' : 'nope.cap', taskId: 'missing' },
  }),
  'verb-before-route': (_w, fixed) => ({ req: { capability: 'crm.sync', action: fixed ? 'write' : 'read' } }),
  'route-before-task': (_w, fixed) => ({
    req: { capability: 'crm.sync', route: fixed ? 'brokered' : 'action', taskId: 'missing' },
  }),
  'inactive-before-unassigned': (w, fixed) => {
    w.tasks.set('t1', task('t1', { status: fixed ? 'active' : 'draft', actors: ['eve'] }));
    return {};
  },
  'unassigned-before-claimed-key': (w, fixed) => {
    w.tasks.set('t1', task('t1', { actors: fixed ? ['eve', 'bot'] : ['eve'] }));
    w.effectKeys.set('t1/s1', {
      state: 'claimed',
      intentId: 'int_eve',
      actorId: 'eve',
      requestDigest: decisionRequest({ actorId: 'eve' }).digest,
      route: 'action',
      outcome: 'allowed',
      approvalId: null,
    });
    return {};
  },
  'claimed-key-before-permission': (w, fixed) => {
    claimed(w, decisionRequest(), 'claimed', 'allowed');
    w.permissions.delete('bot/crm.write');
    return { req: { step: fixed ? 's2' : 's1' } };
  },
  'permission-before-surface': (w, fixed) => {
    if (!fixed) w.permissions.delete('bot/crm.sync');
    return { req: { capability: 'crm.sync', route: 'brokered' } };
  },
  'surface-before-constraints': (w, fixed) => {
    w.plans.set('t1', { capabilities: ['crm.write'] });
    return {
      req: { capability: 'crm.sync', route: 'brokered' },
      ...(fixed ? { surface: surfaceFromState } : {}),
    };
  },
  'constraints-before-policy': (w, fixed) => {
    w.plans.set('t1', { max_amount_usd_per_action: 1 });
    w.policy = null;
    return { req: { amountUsd: fixed ? 0.5 : 5 } };
  },
  'no-policy-before-budget': (w, fixed) => {
    w.policy = fixed ? 'permit (principal, action, resource);' : null;
    return { req: { amountUsd: 500 } };
  },
  'policy-before-budget': (w, fixed) => {
    w.policy = fixed ? 'permit (principal, action, resource);' : 'forbid (principal, action, resource);';
    return { req: { amountUsd: 500 } };
  },
  'budget-before-open-approvals': (w, fixed) => {
    w.openApprovals = { byActor: 1, byTask: 1 };
    return {
      req: { ...pay, ...(fixed ? {} : { amountUsd: 500 }) },
      openApprovals: { perActor: 1, perTask: 1 },
    };
  },
  'budget-before-denied-approval': (w, fixed) => {
    deferral(w, decisionRequest(pay), { status: 'denied' });
    if (!fixed) w.tasks.set('t1', task('t1', { budgetMicros: 1_000_000n }));
    return { req: pay, mode: 'resume' };
  },
  'denied-before-expired': (w, fixed) => {
    deferral(w, decisionRequest(pay), { status: fixed ? 'pending' : 'denied', expiresAt: AT });
    return { req: pay, mode: 'resume' };
  },
  'expired-before-mismatch': (w, fixed) => {
    deferral(w, decisionRequest(pay), {
      status: 'approved',
      expiresAt: fixed ? '2026-03-02T10:00:00.000Z' : AT,
    });
    w.capabilities.set('pay.send', { ...w.capabilities.get('pay.send')!, costMicros: 3_000_000n });
    return { req: pay, mode: 'resume' };
  },
  'request-mismatch-before-checks': (w, fixed) => {
    deferral(w, decisionRequest(pay), { status: 'approved' });
    w.capabilities.set('pay.send', { ...w.capabilities.get('pay.send')!, actions: ['send'] });
    return { req: fixed ? pay : { ...pay, amountUsd: 1.5 }, mode: 'resume' };
  },
};

const codeOf = (s: Sealed) => (s.kind === 'conflict' ? s.code : s.kind === 'sealed' ? s.code : s.kind);

describe('the order of refusals: when two apply, the earlier step decides', () => {
  it.each(ORDER_CASES.map((c) => [c.id, c] as const))('%s', (id, c) => {
    const w = world();
    expect(codeOf(run(w, ORDER[id](w, false))), c.when).toBe(c.wins);
    const fixed = world();
    expect(codeOf(run(fixed, ORDER[id](fixed, true))), `${c.when}, the first cause removed`).toBe(c.over);
  });

  it('has a case for every order the shared list names, and no other', () => {
    expect(Object.keys(ORDER).sort()).toEqual(ORDER_CASES.map((c) => c.id).sort());
  });
});
