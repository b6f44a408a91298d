/**
 * What a candidate policy would change: the policy step's verdict under the policy in force
 * and under the candidate, for the same inputs, and a summary of where they part. Shadow
 * policies (live traffic) and replays (the journal) report through this one summary, so
 * their reports can be compared line for line.
 *
 * Only the policy step is compared. A request refused before it (no permission, unknown
 * task) never reaches a policy and has no inputs; one the policy allowed may still be
 * refused later (budget): the verdict here is the policy's, not the whole decision's.
 */
import type { PolicyDecision } from './authorization.js';
import type { PolicyInputs } from './policy-inputs.js';

export const POLICY_OUTCOMES = ['allowed', 'deferred', 'refused'] as const;
export type PolicyOutcome = (typeof POLICY_OUTCOMES)[number];

export interface PolicyVerdict {
  /** `deferred`: the policy permits, and the capability waits for a person's approval */
  outcome: PolicyOutcome;
  /** the refusal code, on `refused` only */
  code?: 'policy_denied' | 'no_policy';
  /** the labels of the policies that decided, in source order */
  determining: string[];
}

/** The verdict a policy decision gives for these inputs, as the decision pipeline reads it. */
export function verdictOf(decision: PolicyDecision, inputs: PolicyInputs): PolicyVerdict {
  if (decision.decision === 'deny') {
    return {
      outcome: 'refused',
      code: decision.basis === 'no_policy_set' ? 'no_policy' : 'policy_denied',
      determining: [...decision.determining],
    };
  }
  const waits = inputs.capability.irreversible || inputs.capability.tier >= inputs.approvalTier;
  return { outcome: waits ? 'deferred' : 'allowed', determining: [...decision.determining] };
}

/** Whether two verdicts differ in outcome, code or determining policies. */
export function differs(a: PolicyVerdict, b: PolicyVerdict): boolean {
  return (
    a.outcome !== b.outcome ||
    a.code !== b.code ||
    a.determining.length !== b.determining.length ||
    a.determining.some((label, i) => label !== b.determining[i])
  );
}

/** One request whose verdict the candidate changes. */
export interface PolicyDifference {
  /** the decision's intent, where it has one */
  intentId?: string;
  /** the journal sequence of the decision, where it is known (replay) */
  seq?: number;
  /** when it was decided (RFC 3339) */
  at: string;
  inputs: PolicyInputs;
  current: PolicyVerdict;
  candidate: PolicyVerdict;
}

/** `allowed->refused` and the like; `allowed->allowed` where only the determining policies moved. */
export function pairOf(d: Pick<PolicyDifference, 'current' | 'candidate'>): string {
  return `${d.current.outcome}->${d.candidate.outcome}`;
}

export interface DifferenceCount {
  key: string;
  count: number;
}

export interface DifferenceReport {
  /** requests compared */
  evaluated: number;
  /** of them, those whose verdict the candidate changes */
  differing: number;
  /** per outcome pair, most first, each with up to `examplesPer` examples (earliest first) */
  byPair: { pair: string; count: number; examples: PolicyDifference[] }[];
  byCapability: DifferenceCount[];
  byActor: DifferenceCount[];
  /** the candidate permits where the policy in force did not, and the capability waits for a person */
  toApproval: number;
}

/**
 * Summarises differences. `evaluated` counts every request compared, differing or not;
 * `differences` need not be sorted: examples are chosen by time, then intent, so the same
 * set gives the same report however it was gathered.
 */
export function summarise(
  evaluated: number,
  differences: Iterable<PolicyDifference>,
  examplesPer = 3,
): DifferenceReport {
  const pairs = new Map<string, PolicyDifference[]>();
  const capabilities = new Map<string, number>();
  const actors = new Map<string, number>();
  let differing = 0;
  let toApproval = 0;
  for (const d of differences) {
    differing += 1;
    const pair = pairOf(d);
    const list = pairs.get(pair);
    if (list) list.push(d);
    else pairs.set(pair, [d]);
    bump(capabilities, d.inputs.capability.id);
    bump(actors, d.inputs.actor.id);
    if (d.candidate.outcome === 'deferred' && d.current.outcome !== 'deferred') toApproval += 1;
  }
  const byPair = [...pairs.entries()]
    .map(([pair, list]) => ({
      pair,
      count: list.length,
      examples: [...list].sort(byTime).slice(0, Math.max(0, examplesPer)),
    }))
    .sort((a, b) => b.count - a.count || compare(a.pair, b.pair));
  return {
    evaluated,
    differing,
    byPair,
    byCapability: counted(capabilities),
    byActor: counted(actors),
    toApproval,
  };
}

function bump(m: Map<string, number>, key: string): void {
  m.set(key, (m.get(key) ?? 0) + 1);
}

function counted(m: Map<string, number>): DifferenceCount[] {
  return [...m.entries()]
    .map(([key, count]) => ({ key, count }))
    .sort((a, b) => b.count - a.count || compare(a.key, b.key));
}

function byTime(a: PolicyDifference, b: PolicyDifference): number {
  return compare(a.at, b.at) || (a.seq ?? 0) - (b.seq ?? 0) || compare(a.intentId ?? '', b.intentId ?? '');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
