import { Args, Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { EXIT, asSvcError } from '../../src/cli/exit-codes.js';
import { junitErrorXml, junitXml } from '../../src/cli/junit.js';
import { writeJunitFile } from '../../src/cli/junit-file.js';
import { readPolicyFile } from '../../src/cli/policy-test-files.js';
import { renderRun } from '../../src/cli/policy-test-render.js';
import { runPolicyTests, type PolicyTestRun } from '../../src/cli/policy-test-session.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class PolicyTest extends DataDirCommand {
  static override summary = 'Run policy test suites: cases with the verdict the policy must give them.';
  static override description =
    "A suite is a YAML or JSON file whose name ends _test (refunds_test.yaml); a directory is searched for them (default: the working directory). Each case is evaluated as the daemon's policy step evaluates a request. Offline when the suites name their principals, capabilities and policy (--policy, or policy: in the suite); with --tenant, that tenant's registrations and stored policy fill in what a suite does not name (the data dir is only read). Exit 0 all pass, 2 bad usage or a bad suite, 3 the policy does not validate, 4 a test failed.";
  static override examples = [
    '<%= config.bin %> policy test policy-tests/ --policy policy.cedar',
    '<%= config.bin %> policy test refunds_test.yaml --tenant acme --junit policy-tests.xml',
  ];
  static override strict = false;
  static override args = {
    paths: Args.string({ description: 'Suite files and directories to search (repeatable; default: .).' }),
  };
  static override flags = {
    policy: Flags.string({
      summary: 'Test this Cedar policy file (instead of what the suites or the tenant name).',
    }),
    tenant: tenantFlag({
      summary: "Use this tenant's registrations and stored policy for what a suite does not name.",
    }),
    junit: Flags.string({ summary: 'Also write a JUnit XML report to this file, for CI.' }),
  };

  async run(): Promise<PolicyTestRun> {
    const { argv, flags } = await this.parse(PolicyTest);
    const paths = argv as string[];
    let run: PolicyTestRun;
    try {
      const candidate =
        flags.policy === undefined
          ? undefined
          : { text: readPolicyFile(flags.policy, 'policy'), source: flags.policy };
      const options = { paths, cwd: process.cwd(), now: new Date(), ...(candidate ? { candidate } : {}) };
      run =
        flags.tenant === undefined
          ? await runPolicyTests(options)
          : await this.withStore(flags, (store) =>
              runPolicyTests({ ...options, tenant: { store, tenantId: flags.tenant as string } }),
            );
    } catch (err) {
      // A run that could not happen still leaves a report CI reads as an error, never a stale pass.
      if (flags.junit !== undefined) await writeJunitFile(flags.junit, junitErrorXml(asSvcError(err)));
      throw err;
    }
    if (flags.junit !== undefined) await writeJunitFile(flags.junit, junitXml(run.suites));
    this.show(() => renderRun(run.suites));
    process.exitCode = run.failed === 0 ? EXIT.ok : EXIT.testFailed;
    return run;
  }
}
