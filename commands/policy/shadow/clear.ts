import { DataDirCommand } from '../../../src/cli/base-command.js';
import { clearShadowPolicy } from '../../../src/provisioning/policy-shadow.js';
import { tenantFlag } from '../../../src/cli/tenant-flag.js';

export default class PolicyShadowClear extends DataDirCommand {
  static override summary = "Remove a tenant's shadow policy and the differences recorded for it.";
  static override examples = ['<%= config.bin %> policy shadow clear --tenant acme'];
  static override flags = { tenant: tenantFlag({ required: true }) };

  async run(): Promise<{ tenant_id: string; cleared: boolean }> {
    const { flags } = await this.parse(PolicyShadowClear);
    const result = await this.withStore(flags, (store) => clearShadowPolicy(store, flags.tenant));
    this.log(
      result.cleared
        ? `Cleared the shadow policy of tenant ${result.tenant_id}`
        : `Tenant ${result.tenant_id} had no shadow policy`,
    );
    return result;
  }
}
