import { memoryOutbox } from './memory-outbox.js';
import type { Actor } from '../../src/core/actor.js';
import type { Capability } from '../../src/core/capability.js';
import type { OpenApprovalCounts } from '../../src/core/decision/open-approvals.js';
import type { DecisionOps, PolicySource } from '../../src/core/decision/pipeline.js';
import type { DecisionRequest } from '../../src/core/decision/request.js';
import type { ApprovalState, DecisionState, EffectKeyState } from '../../src/core/decision/state.js';
import type { SurfaceState } from '../../src/core/decision/surface.js';
import type { DecisionWrites } from '../../src/core/decision/writes.js';
import type { Micros } from '../../src/core/money.js';
import type { Task } from '../../src/core/task.js';
import { capabilityRecord, taskRecord } from './registry-records.js';

/**
 * A tenant's decision state held in memory, and the `DecisionOps` that read it the way the
 * adapters read their tables (decision-state.ts of each): a permission or a live,
 * unrevoked entitlement holds a capability; a resume reads the approval its deferral waits
 * on; a constrained root's admissions are counted. Nothing here decides: the test drives
 * core's `decision()` over it with `runSync`, the runner SQLite uses.
 */
export interface MemoryWorld {
  approvalTier: number;
  registryVersion: number;
  capabilities: Map<string, Capability>;
  /** tasks by id; a root's installed plan beside it */
  tasks: Map<string, Task>;
  plans: Map<string, unknown>;
  admissions: { rootId: string; amountMicros: Micros }[];
  /** by `${taskId}/${step}` */
  effectKeys: Map<string, EffectKeyState>;
  approvals: Map<string, ApprovalState>;
  /** `${actorId}/${capability}` */
  permissions: Set<string>;
  entitlements: { actorId: string; capability: string; expiresAt: string; revokedAt: string | null }[];
  surfaces: Map<string, NonNullable<SurfaceState>>;
  openApprovals: OpenApprovalCounts;
  /** the policy text; null: none installed */
  policy: string | null;
  /** every plan `apply` was handed, in order */
  applied: DecisionWrites[];
}

export const AT = '2026-03-01T10:00:00.000Z';
export const NOW = new Date(AT);

export const alice: Actor = {
  tenantId: 'acme',
  id: 'alice',
  kind: 'human',
  roles: ['administrator', 'approver'],
  managerId: null,
  certSubject: null,
  displayName: null,
  createdAt: AT,
};

export const bot: Actor = { ...alice, id: 'bot', kind: 'agent', roles: [], managerId: 'alice' };

export function capability(name: string, o: Partial<Capability> = {}): Capability {
  return capabilityRecord('acme', name, AT, { actions: ['write'], ...o });
}

export function task(id: string, o: Partial<Task> = {}): Task {
  return taskRecord('acme', id, AT, o);
}

export const PERMIT_ALL = 'permit (principal, action, resource);';

/**
 * Tenant acme as every row starts: approval tier 3; capabilities crm.write (1 USD),
 * crm.export (requestable, not held), pay.send (2 USD, irreversible, tier 4) and crm.sync
 * (brokered on surface crm); task t1 (100 USD, bot assigned); bot holds crm.write, pay.send
 * and crm.sync; a policy that permits everything.
 */
export function world(): MemoryWorld {
  const caps = [
    capability('crm.write'),
    capability('crm.export', { requestable: true }),
    capability('pay.send', { tier: 4, irreversible: true, costMicros: 2_000_000n }),
    capability('crm.sync', { custody: 'brokered', surfaceId: 'crm', operation: 'sync' }),
  ];
  return {
    approvalTier: 3,
    registryVersion: 1,
    capabilities: new Map(caps.map((c) => [c.name, c])),
    tasks: new Map([['t1', task('t1')]]),
    plans: new Map(),
    admissions: [],
    effectKeys: new Map(),
    approvals: new Map(),
    permissions: new Set(['bot/crm.write', 'bot/pay.send', 'bot/crm.sync']),
    entitlements: [],
    surfaces: new Map(),
    openApprovals: { byActor: 0, byTask: 0 },
    policy: PERMIT_ALL,
    applied: [],
  };
}

const live = (w: MemoryWorld, actorId: string, cap: string, now: Date) =>
  w.entitlements.some(
    (e) =>
      e.actorId === actorId &&
      e.capability === cap &&
      e.revokedAt === null &&
      Date.parse(e.expiresAt) > now.getTime(),
  );

/** The operations a decision asks for, answered from `w`. */
export function memoryOps(w: MemoryWorld): DecisionOps {
  return {
    ...memoryOutbox().ops,
    load(req, caller, now) {
      const task = w.tasks.get(req.taskId);
      const plan = task && w.plans.get(task.rootId);
      const admitted = task ? w.admissions.filter((a) => a.rootId === task.rootId) : [];
      const effectKey = w.effectKeys.get(`${req.taskId}/${req.step}`);
      const state: DecisionState = {
        now,
        approvalTier: w.approvalTier,
        caller,
        capability: w.capabilities.get(req.capability),
        task,
        constraints:
          task && plan !== undefined
            ? {
                rootId: task.rootId,
                plan,
                admittedCount: admitted.length,
                admittedMicros: admitted.reduce((sum, a) => sum + a.amountMicros, 0n),
              }
            : undefined,
        effectKey,
        holds: w.permissions.has(`${caller.id}/${req.capability}`)
          ? 'permission'
          : live(w, caller.id, req.capability, now)
            ? 'entitlement'
            : undefined,
        approval:
          effectKey?.state === 'deferred' && effectKey.approvalId
            ? w.approvals.get(effectKey.approvalId)
            : undefined,
        surfaceProblem: undefined,
      };
      return { state, registryVersion: w.registryVersion };
    },
    surface: (_tenantId, surfaceId) => w.surfaces.get(surfaceId),
    policySource: (): PolicySource => ({
      text: w.policy,
      version: w.policy === null ? 0 : 1,
      verbs: [...new Set([...w.capabilities.values()].flatMap((c) => c.actions))].sort(),
    }),
    openApprovals: () => w.openApprovals,
    // A resume that finds its approval still pending seals nothing and answers with the
    // deferral's own receipt: no refusal, so no row of the table reaches it.
    standingReceipt: () => undefined,
    apply(writes) {
      w.applied.push(writes);
      return { sequence: w.applied.length, receiptId: writes.receiptId, recordHash: '0'.repeat(64) };
    },
  };
}

/**
 * A standing deferral of bot's `req` on its effect key, waiting on approval `apr_1` in
 * `status`, opened for `amountMicros` and expiring at `expiresAt`.
 */
export function deferral(
  w: MemoryWorld,
  req: DecisionRequest,
  approval: Partial<ApprovalState> & Pick<ApprovalState, 'status'>,
): void {
  w.effectKeys.set(`${req.taskId}/${req.step}`, {
    state: 'deferred',
    intentId: 'int_prior',
    actorId: req.actorId,
    requestDigest: req.digest,
    route: req.route,
    outcome: 'deferred',
    approvalId: 'apr_1',
  });
  w.approvals.set('apr_1', {
    id: 'apr_1',
    expiresAt: '2026-03-02T09:00:00.000Z',
    requestDigest: req.digest,
    amountMicros: w.capabilities.get(req.capability)?.costMicros ?? 0n,
    ...approval,
  });
}
