import { beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import type { Capability } from '../../../src/core/capability.js';
import { admits } from '../../../src/core/constraints.js';
import type { PipelineRules } from '../../../src/core/decision/pipeline.js';
import type { Sealed } from '../../../src/core/decision/sealed.js';
import type { SurfaceCheck } from '../../../src/core/decision/surface.js';
import type { Task } from '../../../src/core/task.js';
import { PolicyCache } from '../../../src/daemon/policy-cache.js';
import type { Store } from '../../../src/store/ports.js';
import { decisionRequest, type RequestSpec } from '../../helpers/decision-request.js';
import { ORDER_CASES, type OrderCaseId } from '../../helpers/refusal-order.js';
import type { StoreHarness } from '../harness.js';
import { human, T0, tenantWith } from './fixtures.js';
import { capabilityRecord, taskRecord } from '../../helpers/registry-records.js';

const DAY_MS = 24 * 3_600_000;
const PERMIT = 'permit (principal, action, resource);';

/** One decision to make, and what it is judged by besides the stored state. */
interface Attempt {
  req?: RequestSpec;
  mode?: 'new' | 'resume';
  surface?: SurfaceCheck;
  openApprovals?: PipelineRules['openApprovals'];
}

/** The tenant a case runs in, its actors, and the store's clock. */
interface Tenant {
  id: string;
  bot: Actor;
  alice: Actor;
  eve: Actor;
  /** a decision of `caller` in this tenant, judged by the daemon's policy cache */
  decide(caller: Actor, a: Attempt): Promise<Sealed>;
  /** move the store's clock */
  advance(ms: number): void;
}

const codeOf = (s: Sealed) =>
  s.kind === 'sealed' ? (s.code ?? s.outcome) : s.kind === 'conflict' ? s.code : s.kind;

/** A surface check that admits the operation, as the broker's does for an active surface. */
const surfaceOk: SurfaceCheck = () => ({ ok: true, credentialRef: 'env:CRM' });
const pay = { capability: 'pay.send' };

/**
 * The order cases of test/helpers/refusal-order.ts, set up through the ports (the unit table
 * sets the same cases up in memory): `fixed` removes the winning cause.
 */
const ORDER: Record<OrderCaseId, (s: Store, t: Tenant, fixed: boolean) => Promise<Attempt>> = {
  'capability-before-task': async (_s, _t, fixed) => ({
    req: { capability: fixed ? 'crm.write' : 'nope.cap', taskId: 'missing' },
  }),
  'verb-before-route': async (_s, _t, fixed) => ({
    req: { capability: 'crm.sync', action: fixed ? 'write' : 'read' },
  }),
  'route-before-task': async (_s, _t, fixed) => ({
    req: { capability: 'crm.sync', route: fixed ? 'brokered' : 'action', taskId: 'missing' },
  }),
  'inactive-before-unassigned': async (s, t, fixed) => {
    await s.tasks.create(task(t.id, 't2', { status: 'draft', actors: ['eve'] }));
    // installing the root's plan is what activates a draft task
    if (fixed) await s.constraints.install(t.alice, 't2', {}, new Date(T0));
    return { req: { taskId: 't2' } };
  },
  'unassigned-before-claimed-key': async (s, t, fixed) => {
    await s.tasks.create(task(t.id, 't2', { actors: ['eve'] }));
    await s.permissions.grant({ tenantId: t.id, actorId: 'eve', capability: 'crm.write', grantedAt: T0 });
    expect(await t.decide(t.eve, { req: { taskId: 't2' } })).toMatchObject({ outcome: 'allowed' });
    if (fixed) await s.tasks.assign(t.id, 't2', ['bot']);
    return { req: { taskId: 't2' } };
  },
  'claimed-key-before-permission': async (s, t, fixed) => {
    expect(await t.decide(t.bot, {})).toMatchObject({ outcome: 'allowed' });
    await s.permissions.revoke(t.id, 'bot', 'crm.write');
    return { req: { step: fixed ? 's2' : 's1' } };
  },
  'permission-before-surface': async (s, t, fixed) => {
    if (!fixed) await s.permissions.revoke(t.id, 'bot', 'crm.sync');
    return { req: { capability: 'crm.sync', route: 'brokered' } };
  },
  'surface-before-constraints': async (s, t, fixed) => {
    await s.tasks.create(task(t.id, 't2', { status: 'draft' }));
    await s.constraints.install(t.alice, 't2', { capabilities: ['crm.write'] }, new Date(T0));
    return {
      req: { capability: 'crm.sync', route: 'brokered', taskId: 't2' },
      ...(fixed ? { surface: surfaceOk } : {}),
    };
  },
  'constraints-before-policy': async (s, t, fixed) => {
    await s.tasks.create(task(t.id, 't2', { status: 'draft' }));
    await s.constraints.install(t.alice, 't2', { max_amount_usd_per_action: 1 }, new Date(T0));
    return { req: { taskId: 't2', amountUsd: fixed ? 0.5 : 5 } };
  },
  'no-policy-before-budget': async (s, t, fixed) => {
    if (fixed) await s.policies.set(t.id, PERMIT, T0);
    return { req: { amountUsd: 500 } };
  },
  'policy-before-budget': async (s, t, fixed) => {
    await s.policies.set(t.id, fixed ? PERMIT : 'forbid (principal, action, resource);', T0);
    return { req: { amountUsd: 500 } };
  },
  'budget-before-open-approvals': async (_s, t, fixed) => {
    const bound = { perActor: 1, perTask: 1 };
    expect(await t.decide(t.bot, { req: { ...pay, step: 'open' }, openApprovals: bound })).toMatchObject({
      outcome: 'deferred',
    });
    return { req: { ...pay, ...(fixed ? {} : { amountUsd: 500 }) }, openApprovals: bound };
  },
  'budget-before-denied-approval': async (s, t, fixed) => {
    await deferThenDecide(s, t, 'deny');
    if (!fixed) await s.tasks.setBudget(t.id, 't1', 1_000_000n);
    return { req: pay, mode: 'resume' };
  },
  'denied-before-expired': async (s, t, fixed) => {
    if (fixed) await deferThenDecide(s, t, undefined);
    else await deferThenDecide(s, t, 'deny');
    t.advance(DAY_MS + 1000);
    return { req: pay, mode: 'resume' };
  },
  'expired-before-mismatch': async (s, t, fixed) => {
    await deferThenDecide(s, t, 'approve');
    // the default estimate the approval was given for changes
    await s.capabilities.put(capability(t.id, 'pay.send', { ...PAY, costMicros: 3_000_000n }));
    if (!fixed) t.advance(DAY_MS + 1000);
    return { req: pay, mode: 'resume' };
  },
  'request-mismatch-before-checks': async (s, t, fixed) => {
    await deferThenDecide(s, t, 'approve');
    await s.capabilities.put(capability(t.id, 'pay.send', { ...PAY, actions: ['send'] }));
    return { req: fixed ? pay : { ...pay, amountUsd: 1.5 }, mode: 'resume' };
  },
};

/** No port removes a tenant's policy: the cases that need none start in a tenant made without one. */
const WITHOUT_POLICY: ReadonlySet<OrderCaseId> = new Set([
  'no-policy-before-budget',
  'constraints-before-policy',
]);

const PAY: Partial<Capability> = { tier: 4, irreversible: true, costMicros: 2_000_000n };

/** bot's pay.send on t1/s1 deferred for an approval, which alice then decides (or leaves pending). */
async function deferThenDecide(s: Store, t: Tenant, decision: 'approve' | 'deny' | undefined): Promise<void> {
  const deferred = await t.decide(t.bot, { req: pay });
  expect(deferred).toMatchObject({ outcome: 'deferred', approval: { status: 'pending' } });
  if (decision === undefined || deferred.kind !== 'sealed') return;
  await s.approvals.decide({
    tenantId: t.id,
    approvalId: deferred.approval!.approvalId,
    deciderId: 'alice',
    decision,
    note: null,
    channel: 'api',
    at: new Date(T0),
  });
}

function capability(tenantId: string, name: string, o: Partial<Capability> = {}): Capability {
  return capabilityRecord(tenantId, name, T0, { actions: ['write'], ...o });
}

function task(tenantId: string, id: string, o: Partial<Task> = {}): Task {
  return taskRecord(tenantId, id, T0, o);
}

/** DecisionStore.decide: when two refusals apply, the same one wins on every adapter as in core's table. */
export function refusalOrderContract(h: () => StoreHarness): void {
  describe('the order of refusals through DecisionStore.decide', () => {
    let s: Store;
    let n = 0;
    let now = new Date(T0);
    beforeAll(async () => {
      s = await h().open({ clock: () => now });
    });

    /**
     * The unit table's tenant, provisioned through the ports: alice (approver), agents bot and
     * eve; crm.write (1 USD), crm.export (requestable), pay.send (2 USD, irreversible, tier 4),
     * crm.sync (brokered on surface crm); bot holds crm.write, pay.send and crm.sync; task t1
     * (100 USD, bot assigned); a policy permitting everything unless the case has none.
     */
    async function tenant(policy: boolean): Promise<Tenant> {
      const id = `o${++n}`;
      now = new Date(T0);
      const alice = human(id, 'alice', { roles: ['administrator', 'approver'] });
      const bot = human(id, 'bot', { kind: 'agent', roles: [], managerId: 'alice' });
      const eve = human(id, 'eve', { kind: 'agent', roles: [], managerId: 'alice' });
      await tenantWith(s, id, [alice, bot, eve]);
      for (const c of [
        capability(id, 'crm.write'),
        capability(id, 'crm.export', { requestable: true }),
        capability(id, 'pay.send', PAY),
        capability(id, 'crm.sync', { custody: 'brokered', surfaceId: 'crm', operation: 'sync' }),
      ]) {
        await s.capabilities.put(c);
      }
      for (const cap of ['crm.write', 'pay.send', 'crm.sync']) {
        await s.permissions.grant({ tenantId: id, actorId: 'bot', capability: cap, grantedAt: T0 });
      }
      if (policy) await s.policies.set(id, PERMIT, T0);
      await s.tasks.create(task(id, 't1'));
      const policies = new PolicyCache();
      return {
        id,
        bot,
        alice,
        eve,
        decide: (caller, a) =>
          s.decisions.decide(
            decisionRequest({ tenantId: id, actorId: caller.id, ...a.req }),
            caller,
            a.mode ?? 'new',
            {
              policy: policies,
              constraints: admits,
              ...(a.surface ? { surface: a.surface } : {}),
              ...(a.openApprovals ? { openApprovals: a.openApprovals } : {}),
            },
          ),
        advance: (ms) => void (now = new Date(now.getTime() + ms)),
      };
    }

    it.each(ORDER_CASES.map((c) => [c.id, c] as const))('%s', async (id, c) => {
      const policy = !WITHOUT_POLICY.has(id);
      const both = await tenant(policy);
      expect(codeOf(await both.decide(both.bot, await ORDER[id](s, both, false))), c.when).toBe(c.wins);
      const fixed = await tenant(policy);
      expect(
        codeOf(await fixed.decide(fixed.bot, await ORDER[id](s, fixed, true))),
        `${c.when}, the first cause removed`,
      ).toBe(c.over);
    });

    it('has a case for every order the shared list names, and no other', () => {
      expect(Object.keys(ORDER).sort()).toEqual(ORDER_CASES.map((c) => c.id).sort());
    });
  });
}
