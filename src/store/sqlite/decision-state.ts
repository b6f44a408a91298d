import type { Actor } from '../../core/actor.js';
import type { Capability } from '../../core/capability.js';
import type { DecisionRequest } from '../../core/decision/request.js';
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
   * each decision's transaction (`registry`), so a row held for the version read is the row
   * stored, whichever connection or process wrote it.
   */
  private readonly capabilities = new Map<string, { version: number; byName: Map<string, Capability> }>();

  constructor(db: Db) {
    const big = <T extends { safeIntegers: (on?: boolean) => T }>(s: T) => s.safeIntegers(true);
    this.q = {
      tenant: db.prepare('SELECT approval_tier, registry_version FROM tenants WHERE id = ?'),
      capability: big(db.prepare('SELECT * FROM capabilities WHERE tenant_id = ? AND name = ?')),
      verbs: db.prepare('SELECT actions FROM capabilities WHERE tenant_id = ?'),
      policy: db.prepare('SELECT text FROM policies WHERE tenant_id = ?'),
      // The task with its root's execution constraints, in one statement.
      taskAndPlan: big(
        db.prepare(
          `SELECT ${TASK_COLUMNS}, (SELECT r.constraints FROM tasks r WHERE r.tenant_id = t.tenant_id
             AND r.id = t.root_id) AS plan FROM tasks t WHERE t.tenant_id = ? AND t.id = ?`,
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

  load(
    req: DecisionRequest,
    caller: Actor,
    now: Date,
    registry: { approvalTier: number; registryVersion: number },
  ): DecisionState {
    const t = req.tenantId;
    const capability = this.capability(t, req.capability, registry.registryVersion);
    const row = this.q.taskAndPlan.get(t, req.taskId) as (TaskRow & { plan: string | null }) | undefined;
    const task = row && toTask(row);
    let constraints: DecisionState['constraints'];
    if (task) {
      const plan = row!.plan;
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
      approvalTier: registry.approvalTier,
      caller,
      capability,
      task,
      constraints,
      effectKey,
      holds,
      approval,
      surfaceProblem: undefined,
    };
  }
}

/** Capability rows held per tenant and registry version, at most. */
const MAX_HELD_CAPABILITIES = 1024;
