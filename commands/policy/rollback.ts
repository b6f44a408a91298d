import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import { rollbackPolicy, type PolicyRollback } from '../../src/provisioning/policy-history.js';

export default class PolicyRollbackCommand extends DataDirCommand {
  static override summary =
    "Store an earlier version's text as a new version of a tenant's policy (the history only grows).";
  static override description =
    'The old text is validated against the capabilities registered today first; if it no longer validates, nothing is stored and the error names why. The new version records the rollback in its message.';
  static override examples = [
    '<%= config.bin %> policy rollback --tenant acme --to 3',
    '<%= config.bin %> policy rollback --tenant acme --to 3 --message "v5 refused every refund"',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    to: Flags.integer({ summary: 'The version whose text to store again.', required: true, min: 1 }),
    message: Flags.string({
      char: 'm',
      summary: 'Why, kept in the history after "rollback to version N: ".',
    }),
  };

  async run(): Promise<PolicyRollback> {
    const { flags } = await this.parse(PolicyRollbackCommand);
    const result = await this.withStore(flags, (store) =>
      rollbackPolicy(store, {
        tenantId: flags.tenant,
        to: flags.to,
        ...(flags.message !== undefined ? { message: flags.message } : {}),
        now: new Date(),
      }),
    );
    this.log(
      result.changed
        ? `Installed policy version ${result.version} for tenant ${result.tenant_id}: the text of version ${result.to}`
        : `Unchanged: the policy of tenant ${result.tenant_id} (version ${result.version}) already has the text of version ${result.to}`,
    );
    return result;
  }
}
