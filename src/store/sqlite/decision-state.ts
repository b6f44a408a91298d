import type { Actor } from '../../core/actor.js';
import type { Capability } from '../../core/capability.js';
import type { PolicySource } from '../../core/decision/pipeline.js';
import type { DecisionRequest } from '../../core/decision/request.js';
import type { OpenApprovalCounts } from '../../core/decision/open-approvals.js';
import type { ApprovalState, DecisionState, EffectKeyState } from '../../core/decision/state.js';
import { toCapability, type CapabilityRow } from './capabilities.js';
import { TASK_COLUMNS, toTask, type TaskRow } from './tasks.js';
import type { Db } from './database.js';

/**
 * Reads everything one decision needs, with statements prepared once. Runs inside the
 * write transaction that records the outcome, so what was read is what is current.
 */
export class DecisionStateLoader {
  private readonly q;
  /**
   * Per tenant, the capability rows read under one registry version. Every capability write
   * bumps `tenants.registry_version` in its own transaction, and the version is read inside
   * each decision's transaction (`load`), so a row held for the version read is the row
   * stored, whichever connection or process wrote it.
   */
  private readonly capabilities = new Map<string, { version: number; byName: Map<string, Capability> }>();

  constructor(db: Db) {
    const big = <T extends { safeIntegers: (on?: boolean) => T }>(s: T) => s.safeIntegers(true);
    this.q = {
      capability: big(db.prepare('SELECT * FROM capabilities WHERE tenant_id = ? AND name = ?')),
      verbs: db.prepare('SELECT actions FROM capabilities WHERE tenant_id = ?'),
      policy: db.prepare('SELECT text, version FROM policies WHERE tenant_id = ?'),
      // The tenant's registry version and approval tier, the task and its root's execution
      // constraints, in one statement (no task: the task columns are null).
      tenantAndTask: big(
        db.prepare(
          `SELECT tn.approval_tier AS approval_tier, tn.registry_version AS registry_version, ${TASK_COLUMNS},
             (SELECT r.constraints FROM tasks r WHERE r.tenant_id = t.tenant_id AND r.id = t.root_id) AS plan
           FROM tenants tn LEFT JOIN tasks t ON t.tenant_id = tn.id AND t.id = ? WHERE tn.id = ?`,
        ),
      ),
      admissions: big(
        db.prepare(
          'SELECT count(*) AS n, coalesce(sum(amount_micros), 0) AS total FROM admissions WHERE tenant_id = ? AND root_id = ?',
        ),
      ),
      effectKey: db.prepare(
        `SELECT k.state, k.intent_id, k.request_digest, i.actor_id, i.route, i.outcome, i.approval_id
         FROM effect_keys k JOIN intents i ON i.tenant_id = k.tenant_id AND i.id = k.intent_id
         WHERE k.tenant_id = ? AND k.task_id = ? AND k.step = ?`,
      ),
      permission: db.prepare(
        'SELECT 1 FROM permissions WHERE tenant_id = ? AND actor_id = ? AND capability = ?',
      ),
      entitlement: db.prepare(
        `SELECT 1 FROM entitlements WHERE tenant_id = ? AND actor_id = ? AND capability = ?
         AND revoked_at IS NULL AND expires_at > ? LIMIT 1`,
      ),
      surface: db.prepare(
        'SELECT credential_ref, status FROM surface_states WHERE tenant_id = ? AND surface_id = ?',
      ),
      approval: big(
        db.prepare(
          'SELECT id, status, expires_at, request_digest, amount_micros FROM approvals WHERE tenant_id = ? AND id = ?',
        ),
      ),
      // Both walk a partial index of pending approvals from `now` on (migration 9).
      openByActor: db.prepare(
        `SELECT count(*) AS n FROM approvals
         WHERE tenant_id = ? AND requester_id = ? AND status = 'pending' AND expires_at > ?`,
      ),
      openByTask: db.prepare(
        `SELECT count(*) AS n FROM approvals WHERE tenant_id = ? AND task_id = ? AND status = 'pending' AND expires_at > ?`,
      ),
    };
  }

  /** Approvals standing open (pending, not expired) for the caller and for the task. */
  openApprovals(tenantId: string, actorId: string, taskId: string, now: Date): OpenApprovalCounts {
    const at = now.toISOString();
    return {
      byActor: (this.q.openByActor.get(tenantId, actorId, at) as { n: number }).n,
      byTask: (this.q.openByTask.get(tenantId, taskId, at) as { n: number }).n,
    };
  }

  policySource(tenantId: string): PolicySource {
    const p = this.q.policy.get(tenantId) as { text: string; version: number } | undefined;
    const verbs = new Set<string>();
    for (const r of this.q.verbs.all(tenantId) as { actions: string }[])
      for (const v of JSON.parse(r.actions) as string[]) verbs.add(v);
    return { text: p?.text ?? null, verbs: [...verbs], version: p?.version ?? 0 };
  }

  /** The capability registered under `name`, as stored under `registryVersion` (see `capabilities`). */
  private capability(tenantId: string, name: string, registryVersion: number): Capability | undefined {
    let held = this.capabilities.get(tenantId);
    if (held?.version !== registryVersion) {
      held = { version: registryVersion, byName: new Map() };
      this.capabilities.set(tenantId, held);
    }
    const hit = held.byName.get(name);
    if (hit) return hit;
    const row = this.q.capability.get(tenantId, name) as CapabilityRow | undefined;
    if (!row) return undefined;
    const capability = toCapability(row);
    // Only registered names are held (never misses, which any caller can make up), bounded.
    if (held.byName.size < MAX_HELD_CAPABILITIES) held.byName.set(name, capability);
    return capability;
  }

  /** A surface's stored state in the tenant; undefined until it was first rotated or revoked. */
  surface(
    tenantId: string,
    surfaceId: string,
  ): { credentialRef: string; status: 'active' | 'revoked' } | undefined {
    const r = this.q.surface.get(tenantId, surfaceId) as
      { credential_ref: string; status: 'active' | 'revoked' } | undefined;
    return r && { credentialRef: r.credential_ref, status: r.status };
  }

  /** The decision's state, and the registry version it was read under (what the policy is cached by). */
  load(req: DecisionRequest, caller: Actor, now: Date): { state: DecisionState; registryVersion: number } {
    const t = req.tenantId;
    const row = this.q.tenantAndTask.get(req.taskId, t) as
      | (Omit<TaskRow, 'id'> & {
          id: string | null;
          approval_tier: bigint;
          registry_version: bigint;
          plan: string | null;
        })
      | undefined;
    if (!row) throw new Error(`tenant ${t} vanished`);
    const registryVersion = Number(row.registry_version);
    const capability = this.capability(t, req.capability, registryVersion);
    const task = row.id === null ? undefined : toTask(row as TaskRow);
    let constraints: DecisionState['constraints'];
    if (task) {
      const plan = row.plan;
      if (plan !== null) {
        const a = this.q.admissions.get(t, task.rootId) as { n: bigint; total: bigint };
        constraints = {
          rootId: task.rootId,
          plan: JSON.parse(plan),
          admittedCount: Number(a.n),
          admittedMicros: BigInt(a.total),
        };
      }
    }
    const k = this.q.effectKey.get(t, req.taskId, req.step) as
      | {
          state: 'claimed' | 'deferred';
          intent_id: string;
          request_digest: string;
          actor_id: string;
          route: string;
          outcome: string;
          approval_id: string | null;
        }
      | undefined;
    const effectKey: EffectKeyState | undefined = k && {
      state: k.state,
      intentId: k.intent_id,
      actorId: k.actor_id,
      requestDigest: k.request_digest,
      route: k.route,
      outcome: k.outcome,
      approvalId: k.approval_id,
    };
    let approval: ApprovalState | undefined;
    if (effectKey?.state === 'deferred' && effectKey.approvalId) {
      const a = this.q.approval.get(t, effectKey.approvalId) as
        | {
            id: string;
            status: ApprovalState['status'];
            expires_at: string;
            request_digest: string;
            amount_micros: bigint;
          }
        | undefined;
      approval = a && {
        id: a.id,
        status: a.status,
        expiresAt: a.expires_at,
        requestDigest: a.request_digest,
        amountMicros: BigInt(a.amount_micros),
      };
    }
    const holds = this.q.permission.get(t, caller.id, req.capability)
      ? 'permission'
      : this.q.entitlement.get(t, caller.id, req.capability, now.toISOString())
        ? 'entitlement'
        : undefined;
    const state: DecisionState = {
      now,
      approvalTier: Number(row.approval_tier),
      caller,
      capability,
      task,
      constraints,
      effectKey,
      holds,
      approval,
      surfaceProblem: undefined,
    };
    return { state, registryVersion };
  }
}

/** Capability rows held per tenant and registry version, at most. */
const MAX_HELD_CAPABILITIES = 1024;
