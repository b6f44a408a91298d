import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../../src/cli/base-command.js';
import { counted } from '../../../src/cli/plural.js';
import { requirePassingTests, testPaths } from '../../../src/cli/policy-test-gate.js';
import { formatDiagnostic } from '../../../src/policy/diagnostic.js';
import { promoteShadow } from '../../../src/provisioning/policy-shadow.js';
import type { PolicySet } from '../../../src/provisioning/policy.js';
import { tenantFlag } from '../../../src/cli/tenant-flag.js';

export default class PolicyShadowPromote extends DataDirCommand {
  static override summary =
    "Store a tenant's shadow policy as its new policy version, validated (and with --test, tested) as by policy set, then clear the shadow.";
  static override examples = [
    '<%= config.bin %> policy shadow promote --tenant acme --message "refunds above 100 USD refused, after a week in shadow"',
    '<%= config.bin %> policy shadow promote --tenant acme --test policy-tests/',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    test: Flags.string({
      summary:
        'Store the candidate only if these test suites pass against it (files or directories; repeatable, or a comma list).',
      multiple: true,
    }),
    message: Flags.string({ char: 'm', summary: 'Why, kept with the version in `svc policy history`.' }),
  };

  async run(): Promise<PolicySet & { candidate_id: string }> {
    const { flags } = await this.parse(PolicyShadowPromote);
    const tests = testPaths(flags.test);
    const now = new Date();
    const set = await this.withStore(flags, (store) =>
      promoteShadow(store, {
        tenantId: flags.tenant,
        now,
        ...(flags.message !== undefined ? { message: flags.message } : {}),
        ...(tests.length === 0
          ? {}
          : {
              // The same gate as `svc policy set --test`, on the candidate's text.
              check: async ({ text, source }) => {
                const run = await requirePassingTests({
                  store,
                  tenantId: flags.tenant,
                  text,
                  source,
                  paths: tests,
                  cwd: process.cwd(),
                  now,
                });
                this.note(
                  `Tests passed: ${counted(run.passed, 'case', 'cases')} in ${counted(run.suites.length, 'suite', 'suites')}`,
                );
              },
            }),
      }),
    );
    for (const w of set.warnings) this.note(`warning: ${formatDiagnostic(w)}`);
    this.log(
      set.changed
        ? `Promoted shadow policy ${set.candidate_id}: installed policy version ${set.version} for tenant ${set.tenant_id}; the shadow is cleared`
        : `Unchanged: tenant ${set.tenant_id} already has this policy (version ${set.version}); the shadow is cleared`,
    );
    return set;
  }
}
