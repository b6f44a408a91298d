/**
 * Step 9 of the decision (spec/semantics.md): does the tenant's policy permit this request?
 *
 * Cedar's own rule is deny unless some permit is satisfied and no forbid is. Two things
 * are stricter here, because an authorization engine must fail closed:
 * - a policy that errors while evaluating is skipped by Cedar, which could let a request
 *   through that the erroring forbid was written to stop; any evaluation error denies;
 * - a request the engine cannot take exactly (an unknown verb, an amount beyond what the
 *   JavaScript boundary carries exactly, a malformed value) denies instead of being rounded.
 */
import { statefulIsAuthorized } from './cedar-engine.js';
import type { AuthorizationAnswer, CedarValueJson } from './cedar-engine.js';
import type { ActorKind } from '../core/actor.js';
import type { Micros } from '../core/money.js';
import { cacheOf, wellTyped } from './authorization-cache.js';
import type { CleanAnswer, EngineInput } from './authorization-cache.js';
import { fullCall, leanCall } from './engine-call.js';
import { ensurePreparsed } from './policy-set.js';
import type { CompiledPolicySet } from './policy-set.js';
import type { PolicyEntry } from './policy-source.js';

export interface PolicyRequest {
  tenantId: string;
  actor: { id: string; kind: ActorKind; roles: readonly string[]; manager?: string | null };
  capability: { id: string; tier: number; irreversible: boolean; custody: string };
  /** The request's verb. */
  action: string;
  taskId: string;
  amountMicros: Micros;
  route: 'action' | 'brokered';
  nowEpochS: number;
}

/** Why the answer is what it is, so the pipeline can pick its refusal code without parsing text. */
export type PolicyBasis =
  | 'permit'
  | 'forbid'
  | 'no_permit'
  | 'no_policy_set'
  | 'unknown_action'
  | 'unrepresentable_request'
  | 'evaluation_error';

export interface PolicyDecision {
  decision: 'allow' | 'deny';
  basis: PolicyBasis;
  reason?: string;
  remedy?: string;
  /** Labels (`@id`, else the engine's `policyN`) of the policies that decided, in source order. */
  determining: string[];
  /** The engine's own messages on a fail-closed deny: for the journal and logs, not the caller. */
  errors?: string[];
}

/**
 * Decides `request` against a tenant's compiled policy set; `null` means the tenant has none.
 * A request the set has answered before (as far as the set can tell requests apart) is
 * answered from the set's cache (authorization-cache.ts) without evaluating it again.
 */
export function authorize(
  compiled: CompiledPolicySet | null | undefined,
  request: PolicyRequest,
): PolicyDecision {
  return decide(compiled, request, true);
}

/** `authorize` without the cache: the engine evaluates every request. */
export function authorizeUncached(
  compiled: CompiledPolicySet | null | undefined,
  request: PolicyRequest,
): PolicyDecision {
  return decide(compiled, request, false);
}

// What the engine answered, reduced to what a decision is made of.
type Outcome =
  | CleanAnswer
  | { decision: 'error'; failed: readonly string[]; errors: readonly string[] }
  | { decision: 'failure'; errors: readonly string[] };

function decide(
  compiled: CompiledPolicySet | null | undefined,
  request: PolicyRequest,
  cached: boolean,
): PolicyDecision {
  if (compiled === null || compiled === undefined) return noPolicySet(request.tenantId);
  if (!compiled.actions.includes(request.action)) return unknownAction(request);
  const input = engineRequest(request);
  if (typeof input === 'string') {
    return deny(
      'unrepresentable_request',
      `the policy engine cannot evaluate this request exactly: ${input}`,
    );
  }
  const cache = cached ? cacheOf(compiled) : undefined;
  const key = cache?.keyOf(input);
  let outcome: Outcome | undefined = key === undefined ? undefined : cache?.get(key);
  if (outcome === undefined) {
    outcome = evaluate(compiled, input);
    if (key !== undefined && (outcome.decision === 'allow' || outcome.decision === 'deny')) {
      cache?.set(key, outcome);
    }
  }
  return interpret(compiled, request, outcome);
}

function evaluate(compiled: CompiledPolicySet, input: EngineInput): Outcome {
  ensurePreparsed(compiled);
  // The lean call answers a well-typed request as the full one would (engine-call.ts); only
  // a clean answer is taken from it, so every refusal and its diagnostics are the full call's.
  if (wellTyped(input)) {
    const lean = outcomeOf(compiled, () => statefulIsAuthorized(leanCall(compiled, input)));
    if (lean.decision === 'allow' || lean.decision === 'deny') return lean;
  }
  return outcomeOf(compiled, () => statefulIsAuthorized(fullCall(compiled, input)));
}

function outcomeOf(compiled: CompiledPolicySet, call: () => AuthorizationAnswer): Outcome {
  let answer: AuthorizationAnswer;
  try {
    answer = call();
  } catch (err) {
    // The bindings throw, rather than answer, on a value they cannot convert at all.
    return { decision: 'failure', errors: [String(err)] };
  }
  if (answer.type === 'failure') return { decision: 'failure', errors: answer.errors.map((e) => e.message) };
  const { decision, diagnostics } = answer.response;
  if (diagnostics.errors.length > 0) {
    // The engine lists errors in no fixed order (it walks a hash map): source order makes
    // the same request give the same record every time.
    const order = (id: string) => compiled.policies.get(id)?.order ?? Infinity;
    const errors = [...diagnostics.errors].sort(
      (a, b) => order(a.policyId) - order(b.policyId) || compare(a.error.message, b.error.message),
    );
    return {
      decision: 'error',
      failed: errors.map((e) => e.policyId),
      errors: errors.map((e) => `${e.policyId}: ${e.error.message}`),
    };
  }
  return { decision, reason: diagnostics.reason };
}

function interpret(compiled: CompiledPolicySet, request: PolicyRequest, outcome: Outcome): PolicyDecision {
  if (outcome.decision === 'failure') {
    return {
      ...deny('evaluation_error', 'the policy engine could not evaluate this request, so it is denied'),
      errors: [...outcome.errors],
    };
  }
  if (outcome.decision === 'error') return evaluationError(compiled, outcome.failed, outcome.errors);
  const determining = inSourceOrder(compiled, outcome.reason);
  if (outcome.decision === 'allow')
    return { decision: 'allow', basis: 'permit', determining: labels(determining) };
  if (determining.length > 0) return forbidden(determining);
  return deny(
    'no_permit',
    `no policy permits ${request.actor.id} to ${request.action} ${request.capability.id}`,
    `ask an operator to permit action "${request.action}" on capability "${request.capability.id}" in tenant ${request.tenantId}'s policy set`,
  );
}

function requestContext(request: PolicyRequest): Record<string, CedarValueJson> | string {
  // Cedar's Long is 64-bit, but the engine takes JavaScript numbers: past 2^53 a value
  // would arrive rounded, and a rounded amount can slip under a limit.
  const amount = request.amountMicros;
  if (amount < 0n || amount > BigInt(Number.MAX_SAFE_INTEGER)) {
    return `amount_micros must be between 0 and ${Number.MAX_SAFE_INTEGER}`;
  }
  if (!Number.isSafeInteger(request.capability.tier)) return 'tier must be an integer';
  if (!Number.isSafeInteger(request.nowEpochS)) return 'now_epoch_s must be an integer';
  return {
    task_id: request.taskId,
    tier: request.capability.tier,
    amount_micros: Number(amount),
    route: request.route,
    now_epoch_s: request.nowEpochS,
    irreversible: request.capability.irreversible,
  };
}

/** What the engine is given for `request`, or why it cannot be given it exactly. */
export function engineRequest(request: PolicyRequest): EngineInput | string {
  const context = requestContext(request);
  return typeof context === 'string' ? context : engineInput(request, context);
}

function engineInput(request: PolicyRequest, context: Record<string, CedarValueJson>): EngineInput {
  const { actor, capability } = request;
  const principal: Record<string, CedarValueJson> = { kind: actor.kind, roles: [...actor.roles] };
  if (actor.manager !== null && actor.manager !== undefined) principal['manager'] = actor.manager;
  return {
    action: request.action,
    principalId: actor.id,
    resourceId: capability.id,
    principal,
    resource: { tier: capability.tier, irreversible: capability.irreversible, custody: capability.custody },
    context,
  };
}

function deny(basis: PolicyBasis, reason: string, remedy?: string): PolicyDecision {
  const decision: PolicyDecision = { decision: 'deny', basis, reason, determining: [] };
  if (remedy !== undefined) decision.remedy = remedy;
  return decision;
}

function noPolicySet(tenantId: string): PolicyDecision {
  return deny(
    'no_policy_set',
    `tenant ${tenantId} has no policy set, so every action is denied`,
    `install one with \`svc policy set --tenant ${tenantId} --file policy.cedar\``,
  );
}

function unknownAction(request: PolicyRequest): PolicyDecision {
  return deny(
    'unknown_action',
    `action "${request.action}" is not in the schema the tenant's policy set was validated against`,
    `install the policy set again (\`svc policy set --tenant ${request.tenantId} --file policy.cedar\`) so it is validated with the verbs now registered`,
  );
}

// The first forbid in the text that explains itself speaks for all of them.
function forbidden(forbids: PolicyEntry[]): PolicyDecision {
  const speaker = forbids.find((p) => p.reason !== undefined) ?? forbids.find((p) => p.remedy !== undefined);
  const decision = deny(
    'forbid',
    speaker?.reason ?? `forbidden by policy ${labels(forbids).join(', ')}`,
    speaker?.remedy,
  );
  decision.determining = labels(forbids);
  return decision;
}

function evaluationError(
  compiled: CompiledPolicySet,
  policyIds: readonly string[],
  errors: readonly string[],
): PolicyDecision {
  const failed = inSourceOrder(compiled, policyIds);
  const decision = deny(
    'evaluation_error',
    `policy ${labels(failed).join(', ')} failed to evaluate for this request, so it is denied`,
    'ask an operator to correct the policy so it evaluates for this request',
  );
  decision.determining = labels(failed);
  decision.errors = [...errors];
  return decision;
}

function inSourceOrder(compiled: CompiledPolicySet, cedarIds: readonly string[]): PolicyEntry[] {
  return [...new Set(cedarIds)]
    .map((id) => compiled.policies.get(id) ?? unknownEntry(id))
    .sort((a, b) => a.order - b.order);
}

// The engine only names policies of the set it was given; this keeps an impossible id visible.
function unknownEntry(cedarId: string): PolicyEntry {
  return {
    cedarId,
    label: cedarId,
    effect: 'forbid',
    reason: undefined,
    remedy: undefined,
    order: Infinity,
    index: 0,
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function labels(entries: PolicyEntry[]): string[] {
  return entries.map((p) => p.label);
}
