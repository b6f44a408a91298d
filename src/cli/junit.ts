/**
 * A policy test run as JUnit XML, the report CI systems read (Jenkins, GitLab, GitHub
 * actions that publish test results). It follows the schema those readers share (the
 * Jenkins xunit plugin's junit-10.xsd, kept in test/vectors/junit/ and checked with xmllint
 * in the tests): one <testsuite> per suite file, one <testcase> per case, a <failure> for
 * a case whose verdict is not the expected one. No times: a report of the same run is the
 * same bytes.
 */
import type { SvcError } from '../core/errors.js';
import type { CaseResult, SuiteResult } from '../policy/policy-test-run.js';
import { failureDetail, failureLine } from './policy-test-render.js';
import { xmlAttribute, xmlText } from './xml-escape.js';

export function junitXml(suites: readonly SuiteResult[]): string {
  const tests = suites.reduce((n, s) => n + s.cases.length, 0);
  const failures = suites.reduce((n, s) => n + s.failed, 0);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="svc policy test" tests="${tests}" failures="${failures}" errors="0">`,
  ];
  for (const s of suites) {
    out.push(
      `  <testsuite name="${xmlAttribute(s.name)}" tests="${s.cases.length}" failures="${s.failed}" errors="0" skipped="0" file="${xmlAttribute(s.file)}">`,
      '    <properties>',
      `      <property name="policy" value="${xmlAttribute(s.policy)}"/>`,
      '    </properties>',
    );
    for (const c of s.cases) out.push(...testcase(s, c));
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}

function testcase(s: SuiteResult, c: CaseResult): string[] {
  const open = `    <testcase name="${xmlAttribute(c.name)}" classname="${xmlAttribute(s.name)}"`;
  if (c.passed) return [`${open}/>`];
  return [
    `${open}>`,
    `      <failure type="policy_test_failure" message="${xmlAttribute(failureLine(c))}">${xmlText(failureDetail(c))}</failure>`,
    '    </testcase>',
  ];
}

/** A run that could not happen (a bad suite, a policy that does not validate), as one error. */
export function junitErrorXml(err: SvcError): string {
  const first = err.reason.split('\n')[0] ?? err.reason;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites name="svc policy test" tests="1" failures="0" errors="1">',
    '  <testsuite name="svc policy test" tests="1" failures="0" errors="1" skipped="0">',
    '    <testcase name="run" classname="svc policy test">',
    `      <error type="${xmlAttribute(err.code)}" message="${xmlAttribute(first)}">${xmlText(err.reason)}</error>`,
    '    </testcase>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
