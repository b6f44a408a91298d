/**
 * The one human rendering of a `DifferenceReport`, shared by `svc policy shadow report` and
 * `svc policy replay` so that the two reports of the same candidate read (and diff) line for
 * line; their `--json` is api/policy-difference-view.ts.
 */
import { microsToDecimal } from '../core/money.js';
import type {
  DifferenceCount,
  DifferenceReport,
  PolicyDifference,
  PolicyVerdict,
} from '../policy/policy-difference.js';
import { counted } from './plural.js';
import { renderTable } from './table.js';

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
