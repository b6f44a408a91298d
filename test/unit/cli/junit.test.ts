/**
 * The JUnit report of a policy test run: valid against the Jenkins xunit plugin's
 * junit-10.xsd (test/vectors/junit/, checked by xmllint, the reader CI systems' schema
 * stands for), and whatever a suite writer puts in a name or a reason reads back from the
 * XML exactly, characters XML 1.0 cannot carry replaced by U+FFFD.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import { junitErrorXml, junitXml } from '../../../src/cli/junit.js';
import { xmlAttribute, xmlText } from '../../../src/cli/xml-escape.js';
import type { CaseResult, SuiteResult } from '../../../src/policy/policy-test-run.js';
import { ROOT } from '../../helpers/cli.js';
import { tmpDir } from '../../helpers/tmp.js';

const XSD = join(ROOT, 'test/vectors/junit/junit-10.xsd');
const tmp = tmpDir('svc-junit-');
afterAll(() => tmp.cleanup());
let files = 0;

function xmllint(xml: string, ...args: string[]): { code: number | null; out: string; err: string } {
  const file = join(tmp.path, `r${(files += 1)}.xml`);
  writeFileSync(file, xml);
  const r = spawnSync('xmllint', [...args, file], { encoding: 'utf8' });
  if (r.error) throw r.error;
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The value of an XPath expression (xmllint ends it with a line feed of its own). */
function xpath(xml: string, path: string): string {
  const r = xmllint(xml, '--xpath', path);
  expect(r.err).toBe('');
  return r.out.replace(/\n$/, '');
}

function valid(xml: string): void {
  const r = xmllint(xml, '--noout', '--schema', XSD);
  expect(r.err).toMatch(/validates$/m);
  expect(r.code).toBe(0);
}

const passed: CaseResult = {
  name: 'reads',
  at: 'a_test.yaml:3:5',
  passed: true,
  expected: { outcome: 'allowed' },
  actual: { outcome: 'allowed', determining: ['p'] },
};
const failed: CaseResult = {
  name: 'over the limit',
  at: 'a_test.yaml:9:5',
  passed: false,
  expected: { outcome: 'refused', code: 'policy_denied', reason: 'too much' },
  actual: { outcome: 'deferred', determining: ['refunds'] },
};
const suite = (cases: CaseResult[], name = 'refunds'): SuiteResult => ({
  file: 'a_test.yaml',
  name,
  policy: 'policy.cedar',
  passed: cases.filter((c) => c.passed).length,
  failed: cases.filter((c) => !c.passed).length,
  cases,
});

// Everything XML 1.0 refuses: C0 controls but tab, LF and CR; lone surrogates; U+FFFE, U+FFFF.
const xmlSafe = (s: string) =>
  // eslint-disable-next-line no-control-regex
  s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/gu, '\uFFFD');

describe('the JUnit report', () => {
  it('validates against junit-10.xsd, with counts, a failure per failing case, and no times', () => {
    const xml = junitXml([suite([passed, failed]), suite([passed], 'limits')]);
    valid(xml);
    expect(xml).not.toMatch(/time=/);
    const q = (path: string) => xpath(xml, path);
    expect(q('string(/testsuites/@tests)')).toBe('3');
    expect(q('string(/testsuites/@failures)')).toBe('1');
    expect(q('count(//testsuite)')).toBe('2');
    expect(q('count(//failure)')).toBe('1');
    expect(q('string(//testcase[failure]/@name)')).toBe('over the limit');
    expect(q('string(//failure/@message)')).toBe('expected refused (policy_denied), got deferred');
    expect(q('string(//failure)')).toContain('case:     a_test.yaml:9:5');
    expect(q('string(//testsuite[1]/properties/property[@name="policy"]/@value)')).toBe('policy.cedar');
  });

  it('validates when the run could not happen, as one error', () => {
    const xml = junitErrorXml(
      new SvcError('invalid_request', 'p.cedar does not validate <here>\n  p.cedar:1:2: bad', {
        code: 'policy_invalid',
      }),
    );
    valid(xml);
    expect(xpath(xml, 'string(//error/@type)')).toBe('policy_invalid');
    expect(xpath(xml, 'string(//error/@message)')).toBe('p.cedar does not validate <here>');
    expect(xpath(xml, 'string(//error)')).toBe('p.cedar does not validate <here>\n  p.cedar:1:2: bad');
  });

  it('carries any name and reason a suite holds: valid, and read back exactly', () => {
    const hostile = ['a"b\'c<d>&e', ']]>', '\t\n\r', '\u0000\u001b[31m', '\ud800 lone', '😀 \uffff', '&amp;'];
    const arbitrary = fc.sample(fc.string({ unit: 'binary', maxLength: 24 }), { numRuns: 25, seed: 27 });
    const names = [...hostile, ...arbitrary];
    const cases = names.map((name, i): CaseResult => ({
      ...failed,
      name,
      expected: { outcome: 'refused', code: 'policy_denied', reason: names[(i + 1) % names.length]! },
    }));
    const xml = junitXml([suite(cases, names[2]!)]);
    valid(xml);
    expect(xpath(xml, 'string(//testsuite/@name)')).toBe(xmlSafe(names[2]!));
    names.forEach((name, i) => {
      expect(xpath(xml, `string(//testcase[${i + 1}]/@name)`)).toBe(xmlSafe(name));
      expect(xpath(xml, `string(//testcase[${i + 1}]/failure)`)).toContain(
        xmlSafe(`reason ${JSON.stringify(names[(i + 1) % names.length])}`),
      );
    });
  });

  it('escapes each character XML gives a meaning, and only in the place it has one', () => {
    expect(xmlText('a<b>&c"d\'e\tf\ng\rh')).toBe('a&lt;b&gt;&amp;c"d\'e\tf\ng&#13;h');
    expect(xmlAttribute('a<b>&c"d\'e\tf\ng\rh')).toBe('a&lt;b&gt;&amp;c&quot;d&apos;e&#9;f&#10;g&#13;h');
    expect(xmlText('\u0001\ud800\udc00\udfff')).toBe('\ufffd\ud800\udc00\ufffd');
  });
});
