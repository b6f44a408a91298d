/**
 * Running a policy test suite: each case becomes the question the decision pipeline puts
 * to the policy (step 9), evaluated by the engine without the cache, and read into a
 * verdict exactly as the pipeline and the shadow and replay reports read it (`verdictOf`):
 * a test passes only when the daemon's policy step would answer the same.
 *
 * What the suite does not name (an actor, a capability, the approval tier) comes from the
 * tenant's registrations when the caller has them; a case that names anything unknown, or a
 * verb its capability does not take (the daemon would refuse it before the policy step),
 * is an error in the suite, never a guess.
 */
import { SvcError } from '../core/errors.js';
import type { Micros } from '../core/money.js';
import { authorizeUncached } from './authorization.js';
import { formatDiagnostic } from './diagnostic.js';
import { verdictOf, type PolicyOutcome } from './policy-difference.js';
import { inputsOf, requestOf, type PolicyInputs } from './policy-inputs.js';
import { compilePolicySet, PolicyRejectedError, type CompiledPolicySet } from './policy-set.js';
import type {
  Expectation,
  PolicyTestSuite,
  SuiteCapability,
  SuiteCase,
  SuitePrincipal,
} from './policy-test-suite.js';
import { verbsOf } from './verbs.js';

/** A new tenant's approval tier (the store's default), when neither suite nor tenant says. */
export const DEFAULT_APPROVAL_TIER = 3;

/** What a tenant has registered, for what a suite does not name. */
export interface Registrations {
  tenantId: string;
  actors: ReadonlyMap<string, SuitePrincipal>;
  capabilities: ReadonlyMap<string, SuiteCapability & { actions: string[] }>;
  approvalTier: number;
}

export interface ResolvedCase {
  case: SuiteCase;
  inputs: PolicyInputs;
}

export interface ResolvedSuite {
  suite: PolicyTestSuite;
  /** the verbs of the schema the policy is validated and evaluated against */
  verbs: string[];
  cases: ResolvedCase[];
}

export interface Verdict {
  outcome: PolicyOutcome;
  code?: string;
  reason?: string;
  determining: string[];
}

export interface CaseResult {
  name: string;
  /** `file:line:column` of the case */
  at: string;
  passed: boolean;
  expected: Expectation;
  actual: Verdict;
}

export interface SuiteResult {
  file: string;
  name: string;
  /** where the policy came from: a file, or `tenant T (version N)` */
  policy: string;
  passed: number;
  failed: number;
  cases: CaseResult[];
}

/**
 * The cases as policy inputs. `now` is the time of a case that names none; every problem
 * (an unknown actor or capability, a verb the capability does not take) is reported at once.
 */
export function resolveSuite(
  suite: PolicyTestSuite,
  registrations: Registrations | undefined,
  now: Date,
): ResolvedSuite {
  const problems: string[] = [];
  const tenant = registrations === undefined ? '' : ` nor an actor of tenant ${registrations.tenantId}`;
  const tenantCap =
    registrations === undefined ? '' : ` nor a capability of tenant ${registrations.tenantId}`;
  const approvalTier = suite.approvalTier ?? registrations?.approvalTier ?? DEFAULT_APPROVAL_TIER;
  // A suite capability without `actions` takes the verbs its cases use.
  const usedVerbs = new Map<string, string[]>();
  for (const c of suite.cases)
    usedVerbs.set(c.capability, [...(usedVerbs.get(c.capability) ?? []), c.action]);
  const actionsOf = (name: string): string[] | undefined => {
    const own = suite.capabilities.get(name);
    if (own !== undefined) return own.actions ?? usedVerbs.get(name) ?? [];
    return registrations?.capabilities.get(name)?.actions;
  };
  const cases: ResolvedCase[] = [];
  for (const c of suite.cases) {
    const label = `cases[${c.index}] (${JSON.stringify(c.name)})`;
    const actor = suite.principals.get(c.actor) ?? registrations?.actors.get(c.actor);
    const capability = suite.capabilities.get(c.capability) ?? registrations?.capabilities.get(c.capability);
    if (actor === undefined) {
      problems.push(
        `${c.at('actor')}: ${label}.actor: "${c.actor}" is not in the suite's principals${tenant}`,
      );
    }
    if (capability === undefined) {
      problems.push(
        `${c.at('capability')}: ${label}.capability: "${c.capability}" is not in the suite's capabilities${tenantCap}`,
      );
    }
    const actions = actionsOf(c.capability) ?? [];
    if (capability !== undefined && !actions.includes(c.action)) {
      problems.push(
        `${c.at('action')}: ${label}.action: "${c.action}" is not one of ${c.capability}'s actions (${actions.join(', ')}); the daemon refuses it before the policy step`,
      );
    }
    if (actor === undefined || capability === undefined) continue;
    const amount: Micros = c.amountMicros ?? capability.costMicros ?? 0n;
    cases.push({
      case: c,
      inputs: inputsOf(
        {
          actor: { id: c.actor, kind: actor.kind, roles: actor.roles, manager: actor.manager },
          capability: {
            id: c.capability,
            tier: capability.tier,
            irreversible: capability.irreversible,
            custody: capability.custody,
          },
          action: c.action,
          taskId: c.task,
          amountMicros: amount,
          route: c.route,
          nowEpochS: c.nowEpochS ?? Math.floor(now.getTime() / 1000),
        },
        approvalTier,
      ),
    });
  }
  if (problems.length > 0) {
    throw new SvcError(
      'invalid_request',
      `${suite.file}: ${problems.length === 1 ? '1 case names' : `${problems.length} cases name`} what neither the suite nor the registrations hold:\n  ${problems.join('\n  ')}`,
      {
        field: 'suite',
        remedy:
          registrations === undefined
            ? "name them in the suite (principals, capabilities), or run with --tenant T to use that tenant's registrations"
            : 'name them in the suite (principals, capabilities), or register them in the tenant',
      },
    );
  }
  const suiteVerbs = [...suite.capabilities.keys()].flatMap((name) => actionsOf(name) ?? []);
  const tenantVerbs = [...(registrations?.capabilities.values() ?? [])].flatMap((c) => c.actions);
  return { suite, verbs: verbsOf([{ actions: [...tenantVerbs, ...suiteVerbs] }]), cases };
}

/**
 * The policy text compiled against the suite's verbs; a text that does not validate is
 * `policy_invalid` (exit 3), every diagnostic listed at `source:line:column`.
 */
export function compileForSuite(text: string, source: string, verbs: readonly string[]): CompiledPolicySet {
  try {
    return compilePolicySet(text, verbs);
  } catch (err) {
    if (!(err instanceof PolicyRejectedError)) throw err;
    const lines = err.diagnostics.map((d) => `  ${source}:${formatDiagnostic(d)}`);
    const count = lines.length === 1 ? '1 error' : `${lines.length} errors`;
    throw new SvcError(
      'invalid_request',
      `${source} does not validate against the schema (actions: ${verbs.join(', ')}), ${count}:\n${lines.join('\n')}`,
      { code: 'policy_invalid', field: 'policy', remedy: 'fix the lines above, then run the tests again' },
    );
  }
}

/** Runs every case against `compiled` (`null`: the tenant has no policy, so all is denied). */
export function runSuite(
  compiled: CompiledPolicySet | null,
  resolved: ResolvedSuite,
  opts: { tenantId: string; policy: string },
): SuiteResult {
  const cases = resolved.cases.map(({ case: c, inputs }): CaseResult => {
    const decision = authorizeUncached(compiled, requestOf(opts.tenantId, inputs));
    const verdict = verdictOf(decision, inputs);
    const actual: Verdict = { outcome: verdict.outcome, determining: verdict.determining };
    if (verdict.code !== undefined) actual.code = verdict.code;
    if (verdict.outcome === 'refused' && decision.reason !== undefined) actual.reason = decision.reason;
    return { name: c.name, at: c.at(), passed: meets(actual, c.expect), expected: c.expect, actual };
  });
  const passed = cases.filter((c) => c.passed).length;
  return {
    file: resolved.suite.file,
    name: resolved.suite.name,
    policy: opts.policy,
    passed,
    failed: cases.length - passed,
    cases,
  };
}

/** Whether a verdict is what the case expects: the outcome, and whatever else it names. */
export function meets(actual: Verdict, expected: Expectation): boolean {
  if (actual.outcome !== expected.outcome) return false;
  if (expected.outcome === 'refused') {
    if (actual.code !== expected.code) return false;
    if (expected.reason !== undefined && actual.reason !== expected.reason) return false;
  }
  const want = expected.determining;
  return (
    want === undefined ||
    (want.length === actual.determining.length && want.every((label, i) => label === actual.determining[i]))
  );
}
