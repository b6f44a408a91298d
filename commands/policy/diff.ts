import { Args } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import { policyDiff, type PolicyDiff } from '../../src/provisioning/policy-history.js';

const versionArg = (description: string) => Args.integer({ description, required: true, min: 1 });

export default class PolicyDiffCommand extends DataDirCommand {
  static override summary = "Show a unified diff between two stored versions of a tenant's policy.";
  static override examples = [
    '<%= config.bin %> policy diff --tenant acme 3 5',
    '<%= config.bin %> policy diff --tenant acme 5 3 --json',
  ];
  static override args = {
    from: versionArg('The version to diff from (the - lines).'),
    to: versionArg('The version to diff to (the + lines).'),
  };
  static override flags = { tenant: tenantFlag({ required: true }) };

  async run(): Promise<PolicyDiff> {
    const { args, flags } = await this.parse(PolicyDiffCommand);
    const result = await this.withStore(flags, (store) =>
      policyDiff(store, flags.tenant, args.from, args.to),
    );
    if (result.diff === '') this.note(`Versions ${args.from} and ${args.to} have the same text.`);
    // The diff alone on stdout, so it can be piped to a pager or saved as a patch.
    else if (!this.jsonEnabled()) process.stdout.write(result.diff);
    return result;
  }
}
