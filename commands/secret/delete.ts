import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { deleteSecret } from '../../src/provisioning/secret.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class SecretDelete extends DataDirCommand {
  static override summary =
    'Delete a secret; a surface that references it has no usable credential from the next call on.';
  static override examples = ['<%= config.bin %> secret delete --tenant acme --name crm-token'];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    name: Flags.string({ summary: 'Secret name.', required: true }),
  };

  async run(): Promise<{ tenant_id: string; name: string; deleted: true }> {
    const { flags } = await this.parse(SecretDelete);
    const r = await this.withStore(flags, (store) =>
      deleteSecret(store, { tenantId: flags.tenant, name: flags.name }),
    );
    this.log(`Deleted secret ${r.name} in tenant ${r.tenant_id}`);
    return r;
  }
}
