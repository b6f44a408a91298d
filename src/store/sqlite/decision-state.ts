import type { Actor } from '../../core/actor.js';
import type { DecisionRequest } from '../../core/decision/request.js';
import type { ApprovalState, DecisionState, EffectKeyState } from '../../core/decision/state.js';
import type { Task } from '../../core/task.js';
import { toCapability, type CapabilityRow } from './capabilities.js';
import { TASK_SELECT, toTask, type TaskRow } from './tasks.js';
import type { Db } from './database.js';

/**
 * Reads everything one decision needs, with statements prepared once. Runs inside the
 * write transaction that records the outcome, so what was read is what is current.
 */
export class DecisionStateLoader {
  private readonly q;

  constructor(db: Db) {
    const big = <T extends { safeIntegers: (on?: boolean) => T }>(s: T) => s.safeIntegers(true);
    this.q = {
      tenant: db.prepare('SELECT approval_tier, registry_version FROM tenants WHERE id = ?'),
      capability: big(db.prepare('SELECT * FROM capabilities WHERE tenant_id = ? AND name = ?')),
      verbs: db.prepare('SELECT actions FROM capabilities WHERE tenant_id = ?'),
      policy: db.prepare('SELECT text FROM policies WHERE tenant_id = ?'),
      task: big(db.prepare(`${TASK_SELECT} WHERE t.tenant_id = ? AND t.id = ?`)),
      constraints: db.prepare('SELECT constraints FROM tasks WHERE tenant_id = ? AND id = ?'),
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
    };
  }

  registry(tenantId: string): { approvalTier: number; registryVersion: number } {
    const t = this.q.tenant.get(tenantId) as { approval_tier: number; registry_version: number } | undefined;
    if (!t) throw new Error(`tenant ${tenantId} vanished`);
    return { approvalTier: t.approval_tier, registryVersion: t.registry_version };
  }

  policySource(tenantId: string): { text: string | null; verbs: string[] } {
    const p = this.q.policy.get(tenantId) as { text: string } | undefined;
    const verbs = new Set<string>();
    for (const r of this.q.verbs.all(tenantId) as { actions: string }[])
      for (const v of JSON.parse(r.actions) as string[]) verbs.add(v);
    return { text: p?.text ?? null, verbs: [...verbs] };
  }

  task(tenantId: string, id: string): Task | undefined {
    const r = this.q.task.get(tenantId, id) as TaskRow | undefined;
    return r && toTask(r);
  }

  private planOf(tenantId: string, id: string): string | null {
    return (
      (this.q.constraints.get(tenantId, id) as { constraints: string | null } | undefined)?.constraints ??
      null
    );
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

  load(req: DecisionRequest, caller: Actor, now: Date, approvalTier: number): DecisionState {
    const t = req.tenantId;
    const capRow = this.q.capability.get(t, req.capability) as CapabilityRow | undefined;
    const task = this.task(t, req.taskId);
    let constraints: DecisionState['constraints'];
    if (task) {
      const plan = this.planOf(t, task.rootId);
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
    return {
      now,
      approvalTier,
      caller,
      capability: capRow && toCapability(capRow),
      task,
      constraints,
      effectKey,
      holds,
      approval,
      surfaceProblem: undefined,
    };
  }
}
