/**
 * A `DifferenceReport` (policy/policy-difference.ts) and a replay's result as JSON: the one
 * shape of `svc policy shadow report --json`, `svc policy replay --json` and the console's
 * Policies routes, so the reports of the same candidate compare line for line wherever they
 * are read.
 */
import { formatUsd } from '../core/money.js';
import type { ReplayResult } from '../policy/replay.js';
import type { DifferenceReport, PolicyDifference, PolicyVerdict } from '../policy/policy-difference.js';

export interface VerdictJson {
  outcome: PolicyVerdict['outcome'];
  code: PolicyVerdict['code'] | null;
  determining: string[];
}

export interface DifferenceExampleJson {
  intent_id: string | null;
  seq: number | null;
  at: string;
  capability: string;
  actor: string;
  action: string;
  task_id: string;
  route: string;
  amount_usd: number;
  current: VerdictJson;
  candidate: VerdictJson;
}

export interface DifferenceReportJson {
  evaluated: number;
  differing: number;
  to_approval: number;
  by_pair: { pair: string; count: number; examples: DifferenceExampleJson[] }[];
  by_capability: { capability: string; count: number }[];
  by_actor: { actor: string; count: number }[];
}

/** `svc policy replay --json`, and the console's replay: the counts, then the difference report. */
export interface ReplayJson extends DifferenceReportJson {
  tenant_id: string;
  candidate: string;
  read: number;
  replayed: number;
  skipped: { unrecorded: number; before_policy: number; unreadable: number };
  policy_versions: number[];
  first_seq: number | null;
  last_seq: number | null;
}

export function replayJson(tenantId: string, candidate: string, result: ReplayResult): ReplayJson {
  const c = result.counts;
  return {
    tenant_id: tenantId,
    candidate,
    read: c.read,
    replayed: c.replayed,
    skipped: { unrecorded: c.unrecorded, before_policy: c.beforePolicy, unreadable: c.unreadable },
    policy_versions: result.versions,
    first_seq: result.range?.from ?? null,
    last_seq: result.range?.to ?? null,
    ...differenceJson(result.report),
  };
}

/** The `--json` shape: snake_case, every key present (absent values as null). */
export function differenceJson(report: DifferenceReport): DifferenceReportJson {
  return {
    evaluated: report.evaluated,
    differing: report.differing,
    to_approval: report.toApproval,
    by_pair: report.byPair.map((p) => ({
      pair: p.pair,
      count: p.count,
      examples: p.examples.map(exampleJson),
    })),
    by_capability: report.byCapability.map((c) => ({ capability: c.key, count: c.count })),
    by_actor: report.byActor.map((a) => ({ actor: a.key, count: a.count })),
  };
}

function exampleJson(d: PolicyDifference): DifferenceExampleJson {
  return {
    intent_id: d.intentId ?? null,
    seq: d.seq ?? null,
    at: d.at,
    capability: d.inputs.capability.id,
    actor: d.inputs.actor.id,
    action: d.inputs.action,
    task_id: d.inputs.taskId,
    route: d.inputs.route,
    amount_usd: formatUsd(BigInt(d.inputs.amountMicros)),
    current: verdictJson(d.current),
    candidate: verdictJson(d.candidate),
  };
}

function verdictJson(v: PolicyVerdict): VerdictJson {
  return { outcome: v.outcome, code: v.code ?? null, determining: [...v.determining] };
}

/**
 * Human text: the totals, then each outcome pair with its examples, then the counts by
 * capability and by actor. Every value an agent or an author chose (ids, actions, policy
 * labels) goes through the table's cell escaping.
 */
