/**
 * `svc policy set --test`: the candidate text must pass the suites before it is stored. A
 * failing test or a run that cannot happen (a bad suite, a missing file) throws, and the
 * stored policy stays as it was.
 */
import { SvcError } from '../core/errors.js';
import type { Store } from '../store/ports.js';
import { counted } from './plural.js';
import { failureLine } from './policy-test-render.js';
import { runPolicyTests, type PolicyTestRun } from './policy-test-session.js';

const MAX_LISTED = 20;

/** The `--test` flag's values: repeatable, each also a comma list. */
export function testPaths(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

export async function requirePassingTests(opts: {
  store: Store;
  tenantId: string;
  text: string;
  source: string;
  paths: readonly string[];
  cwd: string;
  now: Date;
}): Promise<PolicyTestRun> {
  const run = await runPolicyTests({
    paths: opts.paths,
    cwd: opts.cwd,
    now: opts.now,
    candidate: { text: opts.text, source: opts.source },
    tenant: { store: opts.store, tenantId: opts.tenantId },
  });
  if (run.failed === 0) return run;
  const failures = run.suites.flatMap((s) =>
    s.cases.filter((c) => !c.passed).map((c) => `${c.at}: ${JSON.stringify(c.name)}: ${failureLine(c)}`),
  );
  const shown = failures.slice(0, MAX_LISTED);
  const more = failures.length > shown.length ? `\n  (and ${failures.length - shown.length} more)` : '';
  throw new SvcError(
    'conflict',
    `${opts.source}: ${run.failed} of ${counted(run.passed + run.failed, 'policy test', 'policy tests')} failed, so the policy was not stored:\n  ${shown.join('\n  ')}${more}`,
    {
      code: 'policy_tests_failed',
      field: 'test',
      remedy: `see every case with \`svc policy test ${opts.paths.join(' ')} --policy ${opts.source} --tenant ${opts.tenantId}\`, fix the policy or the tests, and install it again`,
    },
  );
}
