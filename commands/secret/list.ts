import { DataDirCommand } from '../../src/cli/base-command.js';
import { onePage, type Column } from '../../src/cli/list-output.js';
import { listSecrets, type SecretListing } from '../../src/provisioning/secret.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

const COLUMNS: Column<SecretListing>[] = [
  { header: 'reference', cell: (s) => s.reference },
  { header: 'key id', cell: (s) => s.key_id },
  { header: 'updated', cell: (s) => s.updated_at },
];

export default class SecretList extends DataDirCommand {
  static override summary = "List a tenant's secrets by name (values are never shown).";
  static override examples = ['<%= config.bin %> secret list --tenant acme'];
  static override flags = { tenant: tenantFlag({ required: true }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(SecretList);
    await this.withStore(flags, (store) => this.list(onePage(listSecrets(store, flags.tenant)), COLUMNS));
  }
}
