import { DataDirCommand } from '../../src/cli/base-command.js';
import { showPolicy, type PolicyView } from '../../src/provisioning/policy.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class PolicyShow extends DataDirCommand {
  static override summary = "Print a tenant's stored policy set and its version.";
  static override examples = ['<%= config.bin %> policy show --tenant acme > current.cedar'];
  static override flags = { tenant: tenantFlag({ required: true }) };

  async run(): Promise<PolicyView> {
    const { flags } = await this.parse(PolicyShow);
    const policy = await this.withStore(flags, (store) => showPolicy(store, flags.tenant));
    this.note(
      `Policy version ${policy.version} of tenant ${policy.tenant_id}, installed ${policy.updated_at}`,
    );
    // The text alone on stdout, so it can be saved, edited and installed again.
    if (!this.jsonEnabled())
      process.stdout.write(policy.text.endsWith('\n') ? policy.text : `${policy.text}\n`);
    return policy;
  }
}
