import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/sdk/wire.js';
import { ROOT } from '../helpers/cli.js';
import { runSuite, sdkHarness, type SdkHarness } from '../helpers/sdk-harness.js';
import { tmpDir } from '../helpers/tmp.js';

const SDK = join(ROOT, 'src/sdk/python');

/** `pip install src/sdk/python`, then the SDK's own unittest suite against a real daemon over TLS. */
describe('Python SDK against a real daemon', () => {
  let h: SdkHarness;
  const site = tmpDir('svc-py-');
  beforeAll(async () => {
    h = await sdkHarness('reports.python');
  });
  afterAll(async () => {
    await h?.close();
    site.cleanup();
  });

  it('installs with pip and passes its own tests: every method, every outcome, reconcile', async () => {
    const install = (more: string[]) =>
      runSuite(
        'python3',
        [
          '-m',
          'pip',
          'install',
          '--no-deps',
          '--disable-pip-version-check',
          ...more,
          '--target',
          site.path,
          SDK,
        ],
        site.path,
        {},
      );
    // pip builds in an isolated environment fetched from the package index; offline, the
    // setuptools and wheel Debian's python3-pip depends on build it instead.
    let pip = await install([]);
    if (pip.code !== 0) pip = await install(['--no-build-isolation', '--no-index']);
    expect(pip.code, pip.output).toBe(0);
    const tests = join(SDK, 'tests');
    const run = await runSuite(
      'python3',
      ['-m', 'unittest', 'discover', '-v', '-s', tests, '-t', tests],
      site.path,
      {
        ...h.env,
        PYTHONPATH: site.path,
        PYTHONDONTWRITEBYTECODE: '1',
        SVC_TEST_OPERATIONS: JSON.stringify(Object.keys(OPERATIONS)),
      },
    );
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Ran 12 tests/);
    expect(run.output).toMatch(/\nOK\n/);
    // the installed package ran, not the source tree
    expect(run.output).not.toMatch(/src\/sdk\/python\/svc_sdk/);

    const example = (args: string[], more: Record<string, string> = {}) =>
      runSuite('python3', [join(SDK, 'examples/agent.py'), ...args], site.path, {
        ...more,
        SVC_ENDPOINT: h.env.SVC_ENDPOINT!,
        SVC_TOKEN: h.env.SVC_TOKEN!,
        SVC_CA_CERT: h.env.SVC_CA_CERT!,
        PYTHONPATH: site.path,
      });
    const allowed = await example(['notes.read', 'read', 't1']);
    expect(allowed.code, allowed.output).toBe(0);
    expect(allowed.output).toMatch(/bot asks to read notes.read for task t1\nallowed: intent int_/);
    const deferred = await example([], { SVC_EXAMPLE_CAPABILITY: 'payments.send' });
    expect(deferred.output).toMatch(/deferred: waiting for approval apr_/);
    const refused = await example(['nothing.here']);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/bot may use no capability named nothing.here/);
  }, 120_000);
});
