import type { Actor } from '../../core/actor.js';
import type { Capability, Custody } from '../../core/capability.js';
import type { OpenApprovalCounts } from '../../core/decision/open-approvals.js';
import type { DecisionRequest } from '../../core/decision/request.js';
import type { PolicySource } from '../../core/decision/pipeline.js';
import type { ApprovalState, DecisionState, EffectKeyState } from '../../core/decision/state.js';
import type { Task, TaskStatus } from '../../core/task.js';
import type { LogState } from '../../evidence/journal-entry.js';
import type { PgTx } from './database.js';

/** Where the state read finds each part of a request: parameters, or columns of a batch's rows. */
interface RequestRefs {
  tenant: string;
  capability: string;
  task: string;
  actor: string;
  step: string;
}

/**
 * Everything one decision reads, for the request `q` names. Bigints travel as text
 * (node-postgres returns BIGINT as a string; JSON numbers would round amounts past 2^53).
 * The entitlement column is the caller's: a test against the decision's time, or the latest
 * expiry for the caller to compare.
 */
const stateSelect = (q: RequestRefs, entitlement: string) => `t.approval_tier::int AS approval_tier,
    t.registry_version::text AS registry_version,
    c.name AS c_name, c.tier::int AS c_tier, c.irreversible::int AS c_irreversible, c.custody AS c_custody,
    c.actions AS c_actions, c.cost_micros::text AS c_cost, c.requestable::int AS c_requestable,
    c.approvers AS c_approvers, c.owners AS c_owners, c.surface_id AS c_surface_id, c.operation AS c_operation,
    c.created_at AS c_created_at, c.updated_at AS c_updated_at,
    tk.id AS t_id, tk.title AS t_title, tk.sponsor_id AS t_sponsor_id, tk.status AS t_status,
    tk.parent_id AS t_parent_id, tk.root_id AS t_root_id, tk.budget_micros::text AS t_budget,
    tk.reserved_micros::text AS t_reserved, tk.created_at AS t_created_at, tk.closed_at AS t_closed_at,
    (SELECT coalesce(array_agg(a.actor_id), '{}') FROM task_actors a
      WHERE a.tenant_id = tk.tenant_id AND a.task_id = tk.id) AS t_actors,
    r.constraints AS r_plan,
    (SELECT count(*)::int FROM admissions ad WHERE ad.tenant_id = t.id AND ad.root_id = tk.root_id
      AND r.constraints IS NOT NULL) AS r_count,
    (SELECT coalesce(sum(ad.amount_micros), 0)::text FROM admissions ad WHERE ad.tenant_id = t.id
      AND ad.root_id = tk.root_id AND r.constraints IS NOT NULL) AS r_total,
    k.state AS k_state, k.intent_id AS k_intent_id, k.request_digest AS k_digest,
    i.actor_id AS k_actor_id, i.route AS k_route, i.outcome AS k_outcome, i.approval_id AS k_approval_id,
    ap.id AS a_id, ap.status AS a_status, ap.expires_at AS a_expires_at, ap.request_digest AS a_digest,
    ap.amount_micros::text AS a_amount,
    EXISTS (SELECT 1 FROM permissions p WHERE p.tenant_id = t.id AND p.actor_id = ${q.actor}
      AND p.capability = ${q.capability}) AS has_permission,
    ${entitlement},
    s.credential_ref AS s_credential_ref, s.status AS s_status,
    js.size::text AS j_size, js.chain_hash AS j_chain_hash, js.frontier AS j_frontier`;

const stateJoins = (
  q: RequestRefs,
) => `LEFT JOIN capabilities c ON c.tenant_id = t.id AND c.name = ${q.capability}
  LEFT JOIN tasks tk ON tk.tenant_id = t.id AND tk.id = ${q.task}
  LEFT JOIN tasks r ON r.tenant_id = t.id AND r.id = tk.root_id
  LEFT JOIN effect_keys k ON k.tenant_id = t.id AND k.task_id = ${q.task} AND k.step = ${q.step}
  LEFT JOIN intents i ON i.tenant_id = k.tenant_id AND i.id = k.intent_id
  LEFT JOIN approvals ap ON ap.tenant_id = t.id AND ap.id = i.approval_id AND k.state = 'deferred'
  LEFT JOIN surface_states s ON s.tenant_id = t.id AND s.surface_id = c.surface_id
  LEFT JOIN journal_state js ON js.tenant_id = t.id`;

const entitlements = (q: RequestRefs) =>
  `FROM entitlements e WHERE e.tenant_id = t.id AND e.actor_id = ${q.actor} AND e.capability = ${q.capability}
      AND e.revoked_at IS NULL`;

/** One decision's state, in one round trip. The caller holds the tenant's advisory lock. */
const ONE: RequestRefs = { tenant: '$1', capability: '$2', task: '$3', actor: '$4', step: '$6' };
const STATE_SQL = `SELECT ${stateSelect(ONE, `EXISTS (SELECT 1 ${entitlements(ONE)} AND e.expires_at > $5) AS has_entitlement`)}
  FROM tenants t
  ${stateJoins(ONE)}
  WHERE t.id = $1`;

/**
 * The state of every decision of a batch, in one round trip: a row per request, numbered by
 * its place (`ord`, from 1). Each decision reads the clock when it starts, after this read,
 * so the latest expiry of the caller's entitlements comes back for it to compare.
 */
const BATCH: RequestRefs = {
  tenant: 'q.tenant_id',
  capability: 'q.capability',
  task: 'q.task_id',
  actor: 'q.actor_id',
  step: 'q.step',
};
const BATCH_STATE_SQL = `SELECT q.ord::int AS ord, s.*
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
    WITH ORDINALITY AS q(tenant_id, capability, task_id, actor_id, step, ord)
  CROSS JOIN LATERAL (
    SELECT ${stateSelect(BATCH, `(SELECT max(e.expires_at) ${entitlements(BATCH)}) AS entitled_until`)}
    FROM tenants t
    ${stateJoins(BATCH)}
    WHERE t.id = q.tenant_id
    -- OFFSET 0 keeps this a subquery of its own, planned as the one-request read is (every key
    -- an index condition) and run once per request, rather than merged into one join whose
    -- plan would follow the tables' statistics
    OFFSET 0) s`;

export interface StateRow {
  approval_tier: number;
  registry_version: string;
  c_name: string | null;
  c_tier: number;
  c_irreversible: number;
  c_custody: Custody;
  c_actions: string;
  c_cost: string;
  c_requestable: number;
  c_approvers: string;
  c_owners: string;
  c_surface_id: string | null;
  c_operation: string | null;
  c_created_at: string;
  c_updated_at: string;
  t_id: string | null;
  t_title: string | null;
  t_sponsor_id: string;
  t_status: TaskStatus;
  t_parent_id: string | null;
  t_root_id: string;
  t_budget: string;
  t_reserved: string;
  t_created_at: string;
  t_closed_at: string | null;
  t_actors: string[];
  r_plan: string | null;
  r_count: number;
  r_total: string;
  k_state: 'claimed' | 'deferred' | null;
  k_intent_id: string;
  k_digest: string;
  k_actor_id: string;
  k_route: string;
  k_outcome: string;
  k_approval_id: string | null;
  a_id: string | null;
  a_status: ApprovalState['status'];
  a_expires_at: string;
  a_digest: string;
  a_amount: string;
  has_permission: boolean;
  has_entitlement?: boolean;
  entitled_until?: string | null;
  ord?: number;
  s_credential_ref: string | null;
  s_status: 'active' | 'revoked';
  j_size: string | null;
  j_chain_hash: string;
  j_frontier: string;
}

/** What the decision pipeline reads, with the registry version its policy is cached by. */
export interface LoadedState {
  state: DecisionState;
  registryVersion: number;
  /** the capability's surface as stored; undefined until first rotated or revoked */
  surface: { credentialRef: string; status: 'active' | 'revoked' } | undefined;
  /** the tenant's log state, read under the same lock the append will hold; undefined before its first entry */
  log: LogState | undefined;
}

export async function loadDecisionState(
  tx: PgTx,
  req: DecisionRequest,
  caller: Actor,
  now: Date,
): Promise<LoadedState> {
  const [r] = await tx.query<StateRow>(STATE_SQL, [
    req.tenantId,
    req.capability,
    req.taskId,
    caller.id,
    now.toISOString(),
    req.step,
  ]);
  if (!r) throw new Error(`tenant ${req.tenantId} vanished`);
  return toLoaded(req, caller, now, r);
}

/** A request of a batch whose state is read at once. */
export interface StateRequest {
  req: DecisionRequest;
  caller: Actor;
}

/**
 * What `loadDecisionState` reads, for every request at once, as rows by place for the
 * decisions to finish when each knows its time (`finishState`); a request whose tenant is
 * gone has none.
 */
export async function loadDecisionStates(
  tx: PgTx,
  requests: (StateRequest | undefined)[],
): Promise<(StateRow | undefined)[]> {
  // a place with no request (another kind of job) reads nothing: no tenant is null
  const column = (f: (r: StateRequest) => string) => requests.map((r) => (r ? f(r) : null));
  const rows = await tx.query<StateRow>(BATCH_STATE_SQL, [
    column((r) => r.req.tenantId),
    column((r) => r.req.capability),
    column((r) => r.req.taskId),
    column((r) => r.caller.id),
    column((r) => r.req.step),
  ]);
  const byPlace: (StateRow | undefined)[] = new Array<StateRow | undefined>(requests.length);
  for (const r of rows) byPlace[r.ord! - 1] = r;
  return byPlace;
}

/** A batch read's row as the state a decision starting at `now` reads. */
export function finishState(req: DecisionRequest, caller: Actor, now: Date, r: StateRow): LoadedState {
  const until = r.entitled_until ?? null;
  // the comparison the one-request read makes in SQL: ISO texts of one format order as times
  return toLoaded(req, caller, now, { ...r, has_entitlement: until !== null && until > now.toISOString() });
}

function toLoaded(req: DecisionRequest, caller: Actor, now: Date, r: StateRow): LoadedState {
  const task = toTask(req.tenantId, r);
  const effectKey: EffectKeyState | undefined = r.k_state
    ? {
        state: r.k_state,
        intentId: r.k_intent_id,
        actorId: r.k_actor_id,
        requestDigest: r.k_digest,
        route: r.k_route,
        outcome: r.k_outcome,
        approvalId: r.k_approval_id,
      }
    : undefined;
  const approval: ApprovalState | undefined = r.a_id
    ? {
        id: r.a_id,
        status: r.a_status,
        expiresAt: r.a_expires_at,
        requestDigest: r.a_digest,
        amountMicros: BigInt(r.a_amount),
      }
    : undefined;
  return {
    registryVersion: Number(r.registry_version),
    log:
      r.j_size === null
        ? undefined
        : {
            size: Number(r.j_size),
            chainHash: r.j_chain_hash,
            frontier: JSON.parse(r.j_frontier) as LogState['frontier'],
          },
    surface: r.s_credential_ref ? { credentialRef: r.s_credential_ref, status: r.s_status } : undefined,
    state: {
      now,
      approvalTier: r.approval_tier,
      caller,
      capability: toCapability(req.tenantId, r),
      task,
      constraints:
        task && r.r_plan !== null
          ? {
              rootId: task.rootId,
              plan: JSON.parse(r.r_plan) as unknown,
              admittedCount: r.r_count,
              admittedMicros: BigInt(r.r_total),
            }
          : undefined,
      effectKey,
      holds: r.has_permission ? 'permission' : r.has_entitlement ? 'entitlement' : undefined,
      approval,
      surfaceProblem: undefined,
    },
  };
}

/** The tenant's policy text and every verb its capabilities register: what compiles its policy. */
export async function loadPolicySource(tx: PgTx, tenantId: string): Promise<PolicySource> {
  const [row] = await tx.query<{ text: string | null; version: string | null; actions: string[] }>(
    `SELECT (SELECT text FROM policies WHERE tenant_id = $1) AS text,
       (SELECT version FROM policies WHERE tenant_id = $1) AS version,
       (SELECT coalesce(array_agg(actions), '{}') FROM capabilities WHERE tenant_id = $1) AS actions`,
    [tenantId],
  );
  const verbs = new Set<string>();
  for (const a of row?.actions ?? []) for (const v of JSON.parse(a) as string[]) verbs.add(v);
  return { text: row?.text ?? null, verbs: [...verbs], version: Number(row?.version ?? 0) };
}

/**
 * Approvals standing open (pending, not expired) for the caller and for the task, read
 * under the tenant lock the decision holds: the lock that keeps the budget from being
 * overspent also keeps two replicas from both taking the last slot.
 */
export async function loadOpenApprovals(
  tx: PgTx,
  tenantId: string,
  actorId: string,
  taskId: string,
  now: Date,
): Promise<OpenApprovalCounts> {
  const [row] = await tx.query<{ by_actor: number; by_task: number }>(
    `SELECT (SELECT count(*)::int FROM approvals WHERE tenant_id = $1 AND requester_id = $2
         AND status = 'pending' AND expires_at > $4) AS by_actor,
       (SELECT count(*)::int FROM approvals WHERE tenant_id = $1 AND task_id = $3
         AND status = 'pending' AND expires_at > $4) AS by_task`,
    [tenantId, actorId, taskId, now.toISOString()],
  );
  return { byActor: row?.by_actor ?? 0, byTask: row?.by_task ?? 0 };
}

function toCapability(tenantId: string, r: StateRow): Capability | undefined {
  if (r.c_name === null) return undefined;
  return {
    tenantId,
    name: r.c_name,
    tier: r.c_tier,
    irreversible: r.c_irreversible === 1,
    custody: r.c_custody,
    actions: JSON.parse(r.c_actions) as string[],
    costMicros: BigInt(r.c_cost),
    requestable: r.c_requestable === 1,
    approvers: JSON.parse(r.c_approvers) as string[],
    owners: JSON.parse(r.c_owners) as string[],
    surfaceId: r.c_surface_id,
    operation: r.c_operation,
    createdAt: r.c_created_at,
    updatedAt: r.c_updated_at,
  };
}

function toTask(tenantId: string, r: StateRow): Task | undefined {
  if (r.t_id === null) return undefined;
  return {
    tenantId,
    id: r.t_id,
    title: r.t_title,
    sponsorId: r.t_sponsor_id,
    status: r.t_status,
    parentId: r.t_parent_id,
    rootId: r.t_root_id,
    budgetMicros: BigInt(r.t_budget),
    reservedMicros: BigInt(r.t_reserved),
    actors: [...r.t_actors].sort(),
    createdAt: r.t_created_at,
    closedAt: r.t_closed_at,
  };
}
