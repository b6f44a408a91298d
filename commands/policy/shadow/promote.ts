import { DataDirCommand } from '../../../src/cli/base-command.js';
import { formatDiagnostic } from '../../../src/policy/diagnostic.js';
import { promoteShadow } from '../../../src/provisioning/policy-shadow.js';
import type { PolicySet } from '../../../src/provisioning/policy.js';
import { tenantFlag } from '../../../src/cli/tenant-flag.js';

export default class PolicyShadowPromote extends DataDirCommand {
  static override summary =
    "Store a tenant's shadow policy as its new policy version, validated as by policy set, then clear the shadow.";
  static override examples = ['<%= config.bin %> policy shadow promote --tenant acme'];
  static override flags = { tenant: tenantFlag({ required: true }) };

  async run(): Promise<PolicySet & { candidate_id: string }> {
    const { flags } = await this.parse(PolicyShadowPromote);
    const set = await this.withStore(flags, (store) =>
      promoteShadow(store, { tenantId: flags.tenant, now: new Date() }),
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
