import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { showPolicyVersion, type PolicyShown } from '../../src/provisioning/policy-history.js';
import { cellText } from '../../src/cli/table.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class PolicyShow extends DataDirCommand {
  static override summary = "Print a tenant's stored policy set and its version, or an earlier version.";
  static override examples = [
    '<%= config.bin %> policy show --tenant acme > current.cedar',
    '<%= config.bin %> policy show --tenant acme --version 3 > v3.cedar',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    version: Flags.integer({ summary: 'An earlier version (see `svc policy history`).', min: 1 }),
  };

  async run(): Promise<PolicyShown> {
    const { flags } = await this.parse(PolicyShow);
    const policy = await this.withStore(flags, (store) =>
      showPolicyVersion(store, flags.tenant, flags.version),
    );
    this.note(
      `Policy version ${policy.version}${policy.current ? '' : ' (not current)'} of tenant ${policy.tenant_id}, set ${policy.set_at} by ${policy.set_by}${policy.message === null ? '' : `: ${cellText(policy.message)}`}`,
    );
    // The text alone on stdout, so it can be saved, edited and installed again.
    if (!this.jsonEnabled())
      process.stdout.write(policy.text.endsWith('\n') ? policy.text : `${policy.text}\n`);
    return policy;
  }
}
