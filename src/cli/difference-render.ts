/**
 * The one rendering of a `DifferenceReport`, human and `--json`, shared by `svc policy shadow
 * report` and `svc policy replay` so that the two reports of the same candidate read (and
 * diff) line for line.
 */
import { formatUsd, microsToDecimal } from '../core/money.js';
import type { ReplayResult } from '../policy/replay.js';
import type {
  DifferenceCount,
  DifferenceReport,
  PolicyDifference,
  PolicyVerdict,
} from '../policy/policy-difference.js';
import { counted } from './plural.js';
import { renderTable } from './table.js';

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
export function renderDifference(report: DifferenceReport): string {
  const lines = [
    `Compared ${counted(report.evaluated, 'decision', 'decisions')}: ${report.differing} would change, ` +
      `${report.toApproval} would go to approval.`,
  ];
  if (report.differing === 0) return `${lines[0]}\n`;
  for (const p of report.byPair) {
    lines.push('', `${p.pair.replace('->', ' -> ')}: ${p.count}`);
    lines.push(indent(renderTable(EXAMPLE_HEADERS, p.examples.map(exampleRow))));
  }
  lines.push('', 'By capability:', indent(countTable('capability', report.byCapability)));
  lines.push('', 'By actor:', indent(countTable('actor', report.byActor)));
  return `${lines.join('\n')}\n`;
}

const EXAMPLE_HEADERS = ['at', 'capability', 'actor', 'action', 'amount_usd', 'current', 'candidate'];

function exampleRow(d: PolicyDifference): string[] {
  return [
    d.at,
    d.inputs.capability.id,
    d.inputs.actor.id,
    d.inputs.action,
    microsToDecimal(BigInt(d.inputs.amountMicros)),
    verdictText(d.current),
    verdictText(d.candidate),
  ];
}

/** `refused policy_denied [refund-limit]`, `allowed [small, team]`, `refused no_policy []` */
export function verdictText(v: PolicyVerdict): string {
  const code = v.code ? ` ${v.code}` : '';
  return `${v.outcome}${code} [${v.determining.join(', ')}]`;
}

function countTable(header: string, counts: readonly DifferenceCount[]): string {
  return renderTable(
    [header, 'count'],
    counts.map((c) => [c.key, c.count]),
  );
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => (l === '' ? l : `  ${l}`))
    .join('\n');
}
