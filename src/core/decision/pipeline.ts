import type { Appended } from '../../evidence/journal-append.js';
import type { Actor } from '../actor.js';
import { newId } from '../ids.js';
import { decisionEvents, type DecisionEventOps } from '../notify/decision-events.js';
import type { SubscriberCache } from '../notify/subscriber-cache.js';
import { asker, type UseCase } from '../use-case.js';
import { decide, type DecisionRules } from './decide.js';
import {
  boundOpenApprovals,
  DEFAULT_OPEN_APPROVAL_LIMITS,
  opensApproval,
  type OpenApprovalCounts,
  type OpenApprovalLimits,
} from './open-approvals.js';
import type { DecisionRequest } from './request.js';
import type { Sealed } from './sealed.js';
import { judgeSurface, surfaceToJudge, type SurfaceCheck, type SurfaceState } from './surface.js';
import type { DecisionState } from './state.js';
import {
  planDecision,
  sealedReply,
  standingReply,
  type DecisionWrites,
  type StandingReceiptRow,
} from './writes.js';

/** A tenant's policy source as stored: its text (null: none installed) and its registered verbs. */
export interface PolicySource {
  text: string | null;
  verbs: string[];
  /** `policies.version` of the text; 0 when none is installed */
  version: number;
}

/** A compiled tenant policy and the stored version it was compiled from. */
export interface ResolvedPolicy {
  evaluate: DecisionRules['policy'];
  /**
   * `policies.version` it was compiled from (0: none installed): held with the compile, so a
   * decision names the version that actually answered it, not one read beside it
   */
  version: number;
}

/**
 * Compiled tenant policies, held by the daemon per registry version. Split in two so the
 * pipeline asks for a cached version first and, only on a miss, has the store read the
 * source inside the decision's transaction and hands it over to compile.
 */
export interface PolicyResolver {
  /** the compiled policy of this registry version, if held */
  cached(tenantId: string, registryVersion: number): ResolvedPolicy | undefined;
  /** compile and hold the source read for this registry version */
  install(tenantId: string, registryVersion: number, source: PolicySource): ResolvedPolicy;
}

/** What a decision is judged by, besides the state it reads. */
export interface PipelineRules {
  policy: PolicyResolver;
  constraints: DecisionRules['constraints'];
  surface?: SurfaceCheck;
  /** the bound on open approvals; DEFAULT_OPEN_APPROVAL_LIMITS when absent */
  openApprovals?: OpenApprovalLimits;
  /** the tenants' notification destinations by registry version; without it they are read when needed */
  subscribers?: SubscriberCache;
}

/**
 * The store operations a decision asks for, all inside the one transaction that records it
 * (so what was read is what is current when the outcome is written).
 */
export interface DecisionOps extends DecisionEventOps {
  /** everything `decide` reads, and the registry version the policy is cached by */
  load(req: DecisionRequest, caller: Actor, now: Date): { state: DecisionState; registryVersion: number };
  /** a surface's stored state; undefined until it was first rotated or revoked */
  surface(tenantId: string, surfaceId: string): SurfaceState;
  policySource(tenantId: string): PolicySource;
  /** approvals standing open (pending, not expired) for the caller and for the task */
  openApprovals(tenantId: string, actorId: string, taskId: string, now: Date): OpenApprovalCounts;
  /** the journal record a standing deferral sealed; undefined only if the journal lost it */
  standingReceipt(tenantId: string, intentId: string): StandingReceiptRow | undefined;
  /** every write of the plan, guarded ones checked, and its journal record appended */
  apply(writes: DecisionWrites): Appended;
}

const ask = asker<DecisionOps>();

/**
 * The decision pipeline, once for both stores: read the state, judge the surface, resolve the
 * policy, decide (pure), bound the approvals a caller and a task may hold open, and plan and
 * apply the writes with their journal record. `clock` is read when the store starts the use
 * case, inside its transaction.
 */
export function* decision(
  req: DecisionRequest,
  caller: Actor,
  mode: 'new' | 'resume',
  rules: PipelineRules,
  clock: () => Date,
): UseCase<DecisionOps, Sealed> {
  const now = clock();
  const { state: loaded, registryVersion } = yield* ask('load', req, caller, now);
  const needed = surfaceToJudge(req, loaded.capability);
  const surface = judgeSurface(
    req.tenantId,
    needed,
    rules.surface,
    needed && (yield* ask('surface', req.tenantId, needed.surfaceId)),
  );
  const state = surface.ok ? loaded : { ...loaded, surfaceProblem: surface.problem };
  const policy =
    rules.policy.cached(req.tenantId, registryVersion) ??
    rules.policy.install(req.tenantId, registryVersion, yield* ask('policySource', req.tenantId));
  const decided = decide(req, state, { policy: policy.evaluate, constraints: rules.constraints }, mode);
  // Counted in this transaction, under the store's single writer or tenant lock: two
  // requests cannot both take the last slot.
  const outcome = opensApproval(decided)
    ? boundOpenApprovals(
        decided,
        req,
        caller.id,
        yield* ask('openApprovals', req.tenantId, caller.id, req.taskId, now),
        rules.openApprovals ?? DEFAULT_OPEN_APPROVAL_LIMITS,
      )
    : decided;
  if (outcome.kind === 'no_deferral' || outcome.kind === 'conflict') {
    return outcome.kind === 'no_deferral' ? outcome : { ...outcome };
  }
  const intentId = mode === 'resume' ? state.effectKey!.intentId : newId('int');
  if (outcome.kind === 'deferred' && outcome.standing) {
    const row = yield* ask('standingReceipt', req.tenantId, intentId);
    if (!row) throw new Error(`the standing deferral ${intentId} has no journal record`);
    return standingReply(intentId, outcome, row);
  }
  const writes = planDecision({
    req,
    caller,
    mode,
    outcome,
    intentId,
    now,
    constraintsRoot: state.constraints?.rootId,
    custody: state.capability?.custody,
    policyVersion: policy.version,
    ...(surface.ok && surface.target ? { brokered: surface.target } : {}),
  });
  const appended = yield* ask('apply', writes);
  // The events it reports commit or roll back with it (the outbox).
  yield* decisionEvents(req, writes, loaded.task, registryVersion, rules.subscribers);
  const sealed = sealedReply(writes, appended);
  if (outcome.policyStep !== undefined && sealed.kind === 'sealed') sealed.policyStep = outcome.policyStep;
  return sealed;
}
