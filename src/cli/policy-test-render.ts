/**
 * A policy test run for people: a line per suite with its counts, then each failing case
 * with where it is, what it expected and what the policy answered. The same failure text
 * goes into the JUnit report (junit.ts), so CI and a terminal say the same thing.
 */
import type { CaseResult, SuiteResult, Verdict } from '../policy/policy-test-run.js';
import type { Expectation } from '../policy/policy-test-suite.js';
import { counted } from './plural.js';
import { cellText } from './table.js';

/** The human report: one summary line per suite, failures under it, a total last. */
export function renderRun(suites: readonly SuiteResult[]): string {
  const lines: string[] = [];
  for (const s of suites) {
    const mark = s.failed === 0 ? 'PASS' : 'FAIL';
    // Names, reasons and paths are the suite writer's text: terminal-safe before they are shown.
    lines.push(
      `${mark} ${cellText(s.file)} (${cellText(s.name)}): ${s.passed} passed, ${s.failed} failed, policy ${cellText(s.policy)}`,
    );
    for (const c of s.cases.filter((k) => !k.passed)) {
      lines.push(`  FAIL ${cellText(c.name)}`);
      for (const l of failureDetail(c).split('\n')) lines.push(`       ${cellText(l)}`);
    }
  }
  const failed = suites.reduce((n, s) => n + s.failed, 0);
  const cases = suites.reduce((n, s) => n + s.cases.length, 0);
  lines.push(
    `${counted(suites.length, 'suite', 'suites')}, ${counted(cases, 'case', 'cases')}: ${cases - failed} passed, ${failed} failed`,
  );
  return lines.join('\n');
}

/** `expected refused (policy_denied), got allowed`: one line, for lists and attributes. */
export function failureLine(c: Pick<CaseResult, 'expected' | 'actual'>): string {
  return `expected ${expectationText(c.expected)}, got ${verdictText(c.actual)}`;
}

/** Expected and actual in full, with where the case is. */
export function failureDetail(c: CaseResult): string {
  const lines = [`case:     ${c.at}`, `expected: ${expectationText(c.expected)}`];
  if (c.expected.outcome === 'refused' && c.expected.reason !== undefined)
    lines.push(`          reason ${JSON.stringify(c.expected.reason)}`);
  if (c.expected.determining !== undefined)
    lines.push(`          determining [${c.expected.determining.join(', ')}]`);
  lines.push(`actual:   ${verdictText(c.actual)}`);
  if (c.actual.reason !== undefined) lines.push(`          reason ${JSON.stringify(c.actual.reason)}`);
  lines.push(`          determining [${c.actual.determining.join(', ')}]`);
  return lines.join('\n');
}

function expectationText(e: Expectation): string {
  return e.outcome === 'refused' ? `refused (${e.code})` : e.outcome;
}

function verdictText(v: Verdict): string {
  return v.code !== undefined ? `${v.outcome} (${v.code})` : v.outcome;
}
