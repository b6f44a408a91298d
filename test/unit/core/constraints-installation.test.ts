import { describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import type { ExecutionPlan } from '../../../src/core/constraints.js';
import {
  constraintsInstallation,
  type ConstraintsInstallationOps,
} from '../../../src/core/constraints-installation.js';
import type { Task } from '../../../src/core/task.js';
import { runSync } from '../../../src/core/use-case.js';
import { beforeOp, thrown } from '../../helpers/op-race.js';
import { actorRecord } from '../../helpers/registry-records.js';

const T0 = new Date('2026-06-01T12:00:00.000Z');
const AT = T0.toISOString();

const actor = (id: string, kind: Actor['kind'] = 'human', roles: Actor['roles'] = []): Actor =>
  actorRecord('acme', id, AT, { kind, roles });
const people = {
  sponsor: actor('sponsor'),
  op: actor('op', 'human', ['operator']),
  stranger: actor('stranger'),
  // an agent given a human's id cannot pass for the sponsor
  impostor: actor('sponsor', 'agent'),
};

interface Row {
  task: Task;
  plan: { text: string; at: string; by: string } | null;
  used: boolean;
}

/** One tenant in memory; installing a plan changes the task only where it is still a draft root without one. */
function tenant() {
  const tasks = new Map<string, Row>();
  const put = (id: string, o: Partial<Task> = {}, row: Partial<Row> = {}) => {
    tasks.set(id, {
      task: {
        tenantId: 'acme',
        id,
        title: null,
        sponsorId: 'sponsor',
        status: 'draft',
        parentId: null,
        rootId: id,
        budgetMicros: 0n,
        reservedMicros: 0n,
        actors: ['bot'],
        createdAt: AT,
        closedAt: null,
        ...o,
      },
      plan: null,
      used: false,
      ...row,
    });
    return id;
  };
  const capabilities = new Set(['crm.read', 'crm.write']);
  const actors = new Set(['bot', 'sponsor']);
  const ops: ConstraintsInstallationOps = {
    task: (_t, id) => tasks.get(id)?.task,
    rootState: (_t, id) => {
      const r = tasks.get(id)!;
      return {
        installed: r.plan !== null,
        installedAt: r.plan?.at ?? null,
        installedBy: r.plan?.by ?? null,
        used: r.used,
      };
    },
    registered: (_t, caps, ids) => ({
      capabilities: caps.filter((c) => capabilities.has(c)),
      actors: ids.filter((a) => actors.has(a)),
    }),
    installPlan: (_t, id, text, at, by) => {
      const r = tasks.get(id);
      if (!r || r.plan !== null || r.task.status !== 'draft' || r.task.parentId !== null) return 0;
      tasks.set(id, { ...r, task: { ...r.task, status: 'active' }, plan: { text, at, by } });
      return 1;
    },
  };
  return { tasks, ops, put };
}

const PLAN: ExecutionPlan = { capabilities: ['crm.read', 'crm.write'], actors: ['bot'], max_actions: 3 };
const NEW_ROOT = 'start a new root task with its own plan';

describe('installing execution constraints (core/constraints-installation.ts)', () => {
  it('stores the plan as given and activates the root, by its human sponsor', () => {
    const t = tenant();
    t.put('root');
    runSync(constraintsInstallation(people.sponsor, 'root', PLAN, T0), t.ops);
    expect(t.tasks.get('root')).toMatchObject({
      task: { status: 'active' },
      plan: { text: JSON.stringify(PLAN), at: AT, by: 'sponsor' },
    });
  });

  const refusals: [
    string,
    Actor,
    ExecutionPlan,
    (t: ReturnType<typeof tenant>) => string,
    Record<string, unknown>,
  ][] = [
    ['an unknown task', people.sponsor, PLAN, () => 'none', { code: 'not_found', reason: 'no such task' }],
    [
      'a task the installer may not read (as if it did not exist)',
      people.stranger,
      PLAN,
      (t) => t.put('root'),
      { code: 'not_found', reason: 'no such task' },
    ],
    [
      'anyone but the sponsor, even an operator who reads every task',
      people.op,
      PLAN,
      (t) => t.put('root'),
      {
        code: 'not_sponsor',
        kind: 'forbidden',
        reason: 'only the registered human sponsor of task root (sponsor) installs its execution constraints',
        remedy: 'ask sponsor to install the plan',
      },
    ],
    [
      'a sponsor that is not a human',
      people.impostor,
      PLAN,
      (t) => t.put('root'),
      { code: 'not_sponsor', kind: 'forbidden' },
    ],
    [
      'a task that is not a root',
      people.sponsor,
      PLAN,
      (t) => t.put('child', { parentId: 'root', rootId: 'root' }),
      {
        code: 'not_root',
        kind: 'conflict',
        reason: 'task child is not a root; execution constraints are set on its root',
        remedy: 'install the plan on the root task root',
      },
    ],
    [
      'a root whose plan is installed (before its status is looked at)',
      people.sponsor,
      PLAN,
      (t) => t.put('root', { status: 'active' }, { plan: { text: '{}', at: AT, by: 'sponsor' } }),
      {
        code: 'constraints_installed',
        kind: 'conflict',
        reason: `the execution constraints of task root were installed at ${AT} by sponsor and can never be changed`,
        remedy: NEW_ROOT,
      },
    ],
    [
      'a root that is no longer a draft',
      people.sponsor,
      PLAN,
      (t) => t.put('root', { status: 'active' }),
      {
        code: 'task_not_draft',
        kind: 'conflict',
        reason: 'task root is active; plans are installed on draft tasks',
        remedy: NEW_ROOT,
      },
    ],
    [
      'a root with admissions',
      people.sponsor,
      PLAN,
      (t) => t.put('root', {}, { used: true }),
      {
        code: 'task_used',
        kind: 'conflict',
        reason: 'task root already has admissions; plans are installed on unused tasks',
        remedy: NEW_ROOT,
      },
    ],
    [
      'a plan naming a capability that is not registered',
      people.sponsor,
      { capabilities: ['crm.read', 'crm.wirte'], actors: ['nobody'] },
      (t) => t.put('root'),
      {
        code: 'invalid_request',
        reason: 'capabilities.1: crm.wirte is not registered in this tenant',
        field: 'capabilities.1',
      },
    ],
    [
      'a plan naming an actor that is not registered',
      people.sponsor,
      { actors: ['bot', 'b0t'] },
      (t) => t.put('root'),
      {
        code: 'invalid_request',
        reason: 'actors.1: b0t is not registered in this tenant',
        field: 'actors.1',
      },
    ],
  ];
  for (const [what, installer, plan, given, refusal] of refusals) {
    it(`refuses ${what}, and writes nothing`, async () => {
      const t = tenant();
      const id = given(t);
      const before = structuredClone([...t.tasks.entries()]);
      const run = () => runSync(constraintsInstallation(installer, id, plan, T0), t.ops);
      expect(await thrown(run)).toMatchObject(refusal);
      expect([...t.tasks.entries()]).toEqual(before);
    });
  }

  it('fails with a coded conflict when the root changed before its guarded write', async () => {
    const t = tenant();
    t.put('root');
    // another installation got there after the use case read the root as a bare draft
    const ops = beforeOp(t.ops, 'installPlan', () =>
      t.tasks.set('root', { ...t.tasks.get('root')!, plan: { text: '{}', at: AT, by: 'sponsor' } }),
    );
    expect(
      await thrown(() => runSync(constraintsInstallation(people.sponsor, 'root', PLAN, T0), ops)),
    ).toMatchObject({
      code: 'conflict',
      reason:
        'the execution plan installation changed 0 rows, not one: the state it was decided on no longer holds; retry',
    });
    expect(t.tasks.get('root')!.plan!.text).toBe('{}');
  });
});
