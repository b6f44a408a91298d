import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { counted } from '../../src/cli/plural.js';
import { requirePassingTests, testPaths } from '../../src/cli/policy-test-gate.js';
import { formatDiagnostic } from '../../src/policy/diagnostic.js';
import { setPolicy, type PolicySet } from '../../src/provisioning/policy.js';
import { readTextFile } from '../../src/provisioning/text-file.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class PolicySetCommand extends DataDirCommand {
  static override summary =
    "Install a tenant's Cedar policy set; it is validated first, and an invalid one leaves the stored policy in place.";
  static override examples = [
    '<%= config.bin %> policy example > policy.cedar',
    '<%= config.bin %> policy set --tenant acme --file policy.cedar',
    '<%= config.bin %> policy set --tenant acme --file policy.cedar --test policy-tests/',
    '<%= config.bin %> policy set --tenant acme --file policy.cedar --message "refunds above 500 USD need approval"',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    file: Flags.string({ char: 'f', summary: 'The policy set, in Cedar syntax.', required: true }),
    test: Flags.string({
      summary:
        'Store the policy only if these test suites pass against it (files or directories; repeatable, or a comma list).',
      multiple: true,
    }),
    message: Flags.string({ char: 'm', summary: 'Why, kept with the version in `svc policy history`.' }),
  };

  async run(): Promise<PolicySet> {
    const { flags } = await this.parse(PolicySetCommand);
    const text = readTextFile('file', flags.file);
    const tests = testPaths(flags.test);
    const now = new Date();
    const set = await this.withStore(flags, (store) =>
      setPolicy(store, {
        tenantId: flags.tenant,
        text,
        source: flags.file,
        now,
        ...(tests.length === 0
          ? {}
          : {
              check: async () => {
                const run = await requirePassingTests({
                  store,
                  tenantId: flags.tenant,
                  text,
                  source: flags.file,
                  paths: tests,
                  cwd: process.cwd(),
                  now,
                });
                this.note(
                  `Tests passed: ${counted(run.passed, 'case', 'cases')} in ${counted(run.suites.length, 'suite', 'suites')}`,
                );
              },
            }),
        ...(flags.message !== undefined ? { message: flags.message } : {}),
      }),
    );
    for (const w of set.warnings) this.note(`warning: ${flags.file}:${formatDiagnostic(w)}`);
    this.log(
      set.changed
        ? `Installed policy version ${set.version} for tenant ${set.tenant_id} (actions: ${set.verbs.join(', ')})`
        : `Unchanged: tenant ${set.tenant_id} already has this policy (version ${set.version})`,
    );
    return set;
  }
}
