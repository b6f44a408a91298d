import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { listSecrets, type SecretListing } from '../../src/provisioning/secret.js';

export default class SecretList extends DataDirCommand {
  static override summary = "List a tenant's secrets by name (values are never shown).";
  static override examples = ['<%= config.bin %> secret list --tenant acme'];
  static override flags = { tenant: Flags.string({ summary: 'Tenant id.', required: true }) };

  async run(): Promise<{ tenant_id: string; secrets: SecretListing[] }> {
    const { flags } = await this.parse(SecretList);
    const secrets = await this.withStore(flags, (store) => listSecrets(store, flags.tenant));
    this.log(
      renderTable(
        ['reference', 'key id', 'updated'],
        secrets.map((s) => [s.reference, s.key_id, s.updated_at]),
      ),
    );
    return { tenant_id: flags.tenant, secrets };
  }
}
