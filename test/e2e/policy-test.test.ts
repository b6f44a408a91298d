/**
 * `svc policy test` and `svc policy set --test` through the built binary, over real files and
 * a real data dir: the quickstart demo's suite (src/provisioning/demo-policy_test.yaml) passes
 * against the demo policy offline and against the tenant quickstart provisions; a failing
 * case exits 4 with expected and actual; a policy that does not validate exits 3; a bad suite
 * exits 2 naming the file, the case and the field; every JUnit report validates against
 * junit-10.xsd with xmllint; and `policy set --test` stores nothing when a test fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDemo } from '../../src/provisioning/demo.js';
import { DEMO_POLICY } from '../../src/provisioning/demo-spec.js';
import { ROOT, runJson, runSvc } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

const DEMO_SUITE = 'src/provisioning/demo-policy_test.yaml';
const XSD = join(ROOT, 'test/vectors/junit/junit-10.xsd');

interface Run {
  passed: number;
  failed: number;
  suites: {
    file: string;
    name: string;
    policy: string;
    passed: number;
    failed: number;
    cases: { name: string; at: string; passed: boolean; expected: unknown; actual: unknown }[];
  }[];
}

function schemaValid(file: string): void {
  const r = spawnSync('xmllint', ['--noout', '--schema', XSD, file], { encoding: 'utf8' });
  expect(r.stderr).toMatch(/validates$/m);
  expect(r.status).toBe(0);
}

describe('svc policy test', () => {
  const tmp = tmpDir('svc-policy-test-');
  const home = join(tmp.path, 'home');
  const file = (name: string, text: string) => {
    const path = join(tmp.path, name);
    writeFileSync(path, text);
    return path;
  };
  const demoPolicy = join(tmp.path, 'demo.cedar');
  // The demo policy with the refund limit raised from 100 to 300 USD.
  const loose = join(tmp.path, 'loose.cedar');

  beforeAll(async () => {
    writeFileSync(demoPolicy, DEMO_POLICY);
    const raised = DEMO_POLICY.replace('> 100000000 }', '> 300000000 }');
    expect(raised).not.toBe(DEMO_POLICY);
    writeFileSync(loose, raised);
    // The data dir `svc quickstart` makes: tenant demo, its registrations and the demo policy.
    await ensureDemo(home, new Date());
  }, 60_000);
  afterAll(() => tmp.cleanup());

  it("passes the quickstart demo's suite offline, against the demo policy", async () => {
    const junit = join(tmp.path, 'demo.xml');
    const run = await runJson<Run>(['policy', 'test', DEMO_SUITE, '--policy', demoPolicy, '--junit', junit]);
    expect(run).toMatchObject({ failed: 0, suites: [{ file: DEMO_SUITE, name: 'quickstart demo policy' }] });
    expect(run.passed).toBeGreaterThanOrEqual(8);
    schemaValid(junit);
    const human = await runSvc(['policy', 'test', DEMO_SUITE, '--policy', demoPolicy]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      /^PASS src\/provisioning\/demo-policy_test\.yaml \(quickstart demo policy\): \d+ passed, 0 failed/m,
    );
  });

  it('passes it against the tenant quickstart provisions, with the stored policy and registrations', async () => {
    const run = await runJson<Run>(['policy', 'test', DEMO_SUITE, '--tenant', 'demo', '--data-dir', home]);
    expect(run).toMatchObject({ failed: 0, suites: [{ policy: 'tenant demo (version 1)' }] });
  });

  it('fails a case whose verdict differs: exit 4, expected and actual, and a JUnit failure', async () => {
    const junit = join(tmp.path, 'loose.xml');
    const r = await runSvc(['policy', 'test', DEMO_SUITE, '--policy', loose, '--junit', junit]);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('FAIL src/provisioning/demo-policy_test.yaml (quickstart demo policy)');
    expect(r.stdout).toMatch(
      /FAIL one micro-dollar over the limit is refused, with the policy's reason\n\s+case: +src\/provisioning\/demo-policy_test\.yaml:\d+:5\n\s+expected: refused \(policy_denied\)\n\s+reason "a single refund is limited to 100 USD"\n\s+determining \[refund-limit\]\n\s+actual: +deferred\n\s+determining \[demo-agent-refunds\]/,
    );
    schemaValid(junit);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites name="svc policy test" tests="\d+" failures="2" errors="0">/);
    expect(xml).toContain('message="expected refused (policy_denied), got deferred"');
    const json = await runSvc(['policy', 'test', DEMO_SUITE, '--policy', loose, '--json']);
    expect(json.code).toBe(4);
    const run = JSON.parse(json.stdout) as Run;
    expect(run.failed).toBe(2);
    expect(run.suites[0]!.cases.filter((c) => !c.passed).map((c) => c.actual)).toEqual([
      { outcome: 'deferred', determining: ['demo-agent-refunds'] },
      { outcome: 'deferred', determining: ['demo-agent-refunds'] },
    ]);
  });

  it('exits 3 with every diagnostic when the policy does not validate, and says so in the JUnit report', async () => {
    const bad = file('bad.cedar', 'permit (principal, action == Action::"nope", resource);\n');
    const junit = join(tmp.path, 'bad.xml');
    const r = await runSvc(['policy', 'test', DEMO_SUITE, '--policy', bad, '--junit', junit]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /does not validate against the schema \(actions: read, refund, write\), 1 error:\n\s+.*bad\.cedar:1:\d+: .*Action::"nope"/,
    );
    schemaValid(junit);
    expect(readFileSync(junit, 'utf8')).toMatch(
      /<error type="policy_invalid" message="[^"]*bad\.cedar does not validate/,
    );
  });

  it('exits 2 for a bad suite, naming the file, the line, the case and the field', async () => {
    const suite = file(
      'broken_test.yaml',
      'principals:\n  bot: { kind: agent, manager: m }\ncases:\n  - name: over\n    actor: bot\n    capability: pay\n    action: pay\n    expect: { outcome: refused, code: denied }\n',
    );
    const r = await runSvc(['policy', 'test', suite, '--policy', demoPolicy]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${suite}:8:39: cases[0] ("over").expect.code: Invalid option: expected one of "policy_denied"|"no_policy"`,
    );
  });

  it('exits 2 when a path holds no suite, and when a suite names no policy to test', async () => {
    const empty = join(tmp.path, 'empty');
    mkdirSync(empty);
    const none = await runSvc(['policy', 'test', empty]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/holds no test suite/);
    const nothing = await runSvc(['policy', 'test', DEMO_SUITE]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/names no policy to test/);
  });

  it("searches a directory for suites, and takes the suite's own policy: file", async () => {
    const dir = join(tmp.path, 'suites');
    mkdirSync(join(dir, 'nested'), { recursive: true });
    writeFileSync(join(dir, 'nested', 'policy.cedar'), DEMO_POLICY);
    writeFileSync(join(dir, 'README.yaml'), 'not: a suite\n');
    writeFileSync(
      join(dir, 'nested', 'refunds_test.json'),
      JSON.stringify({
        policy: 'policy.cedar',
        principals: { 'demo-agent': { kind: 'agent', manager: 'admin' } },
        capabilities: { 'payments.refund': { tier: 4, irreversible: true } },
        cases: [
          {
            actor: 'demo-agent',
            capability: 'payments.refund',
            action: 'refund',
            amount_usd: 101,
            expect: { outcome: 'refused', code: 'policy_denied' },
          },
          {
            actor: 'demo-agent',
            capability: 'payments.refund',
            action: 'refund',
            amount_usd: 99,
            expect: { outcome: 'refused', code: 'policy_denied' },
          },
        ],
      }),
    );
    const r = await runSvc(['policy', 'test', dir, '--json']);
    expect(r.code).toBe(4);
    const run = JSON.parse(r.stdout) as Run;
    expect(run.suites.map((s) => [s.name, s.policy, s.passed, s.failed])).toEqual([
      ['refunds', join(dir, 'nested', 'policy.cedar'), 1, 1],
    ]);
  });

  it("reads the tenant's approval tier from the store", async () => {
    const suite = file(
      'tier_test.yaml',
      'cases:\n  - { actor: demo-agent, capability: demo.notes, action: read, expect: allowed }\n',
    );
    const test = ['policy', 'test', suite, '--tenant', 'demo', '--data-dir', home, '--json'];
    expect((await runJson<Run>(test.slice(0, -1))).failed).toBe(0);
    // No command sets it yet; the column is the store's own.
    const db = new Database(join(home, 'svc.db'));
    try {
      db.prepare("UPDATE tenants SET approval_tier = 1 WHERE id = 'demo'").run();
    } finally {
      db.close();
    }
    const r = await runSvc(test);
    expect(r.code).toBe(4);
    expect((JSON.parse(r.stdout) as Run).suites[0]!.cases[0]!.actual).toMatchObject({ outcome: 'deferred' });
    const db2 = new Database(join(home, 'svc.db'));
    try {
      db2.prepare("UPDATE tenants SET approval_tier = 3 WHERE id = 'demo'").run();
    } finally {
      db2.close();
    }
  });
});

describe('svc policy set --test', () => {
  const tmp = tmpDir('svc-policy-set-test-');
  const home = join(tmp.path, 'home');
  const env = { SVC_HOME: home };
  const demoPolicy = join(tmp.path, 'demo.cedar');
  const loose = join(tmp.path, 'loose.cedar');

  beforeAll(async () => {
    writeFileSync(demoPolicy, DEMO_POLICY);
    writeFileSync(loose, DEMO_POLICY.replace('> 100000000 }', '> 300000000 }'));
    await ensureDemo(home, new Date());
  }, 60_000);
  afterAll(() => tmp.cleanup());

  const version = async () =>
    await runJson<{ version: number; text: string }>(['policy', 'show', '--tenant', 'demo'], env);

  it('refuses to store a policy whose tests fail: exit 4, the failing cases named, the stored policy unchanged', async () => {
    const before = await version();
    const r = await runSvc(['policy', 'set', '--tenant', 'demo', '--file', loose, '--test', DEMO_SUITE], env);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /2 of \d+ policy tests failed, so the policy was not stored:(\n {2}src\/provisioning\/demo-policy_test\.yaml:\d+:5: "[^"]+": expected refused \(policy_denied\), got deferred){2}\n/,
    );
    expect(await version()).toEqual(before);
    const json = await runSvc(
      ['policy', 'set', '--tenant', 'demo', '--file', loose, '--test', DEMO_SUITE, '--json'],
      env,
    );
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'policy_tests_failed', field: 'test' } });
    expect(await version()).toEqual(before);
  });

  it('refuses to store a policy whose tests do not run: exit 2, nothing stored', async () => {
    const before = await version();
    const r = await runSvc(
      ['policy', 'set', '--tenant', 'demo', '--file', loose, '--test', join(tmp.path, 'missing_test.yaml')],
      env,
    );
    expect(r.code).toBe(2);
    expect(await version()).toEqual(before);
  });

  it('stores a policy whose tests pass, the paths repeatable or a comma list', async () => {
    const before = await version();
    const tightened = join(tmp.path, 'tight.cedar');
    const text = `${DEMO_POLICY}\n@id("no-brokered-refunds")\nforbid (principal, action == Action::"refund", resource) when { context.route == "brokered" };\n`;
    writeFileSync(tightened, text);
    const brokered = join(tmp.path, 'brokered_test.yaml');
    writeFileSync(
      brokered,
      'cases:\n  - { actor: demo-agent, capability: payments.refund, action: refund, amount_usd: 1, route: brokered, expect: { outcome: refused, code: policy_denied, determining: [no-brokered-refunds] } }\n',
    );
    const reads = join(tmp.path, 'reads_test.yaml');
    writeFileSync(
      reads,
      'cases:\n  - { actor: demo-agent, capability: demo.notes, action: read, expect: allowed }\n',
    );
    const set = (file: string, ...tests: string[]) =>
      runSvc(
        ['policy', 'set', '--tenant', 'demo', '--file', file, ...tests.flatMap((t) => ['--test', t])],
        env,
      );

    // The demo suite expects a brokered refund to be deferred: the tightened policy fails it.
    expect((await set(tightened, `${DEMO_SUITE},${brokered}`)).code).toBe(4);
    expect(await version()).toEqual(before);

    const stored = await set(tightened, brokered, reads);
    expect(stored.code).toBe(0);
    expect(stored.stderr).toContain('Tests passed: 2 cases in 2 suites');
    expect(await version()).toMatchObject({ version: before.version + 1, text });

    expect((await set(demoPolicy, `${DEMO_SUITE},${reads}`)).code).toBe(0);
    expect(await version()).toMatchObject({ version: before.version + 2, text: DEMO_POLICY });
  });
});
