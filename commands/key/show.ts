import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { showKeys, type KeyView } from '../../src/provisioning/signing-key.js';

export default class KeyShow extends DataDirCommand {
  static override summary = "Show a tenant's journal signing key for auditors to pin.";
  static override examples = [
    '<%= config.bin %> key show --tenant acme',
    '<%= config.bin %> key show --tenant acme --pem > acme-journal.pub.pem',
  ];
  static override flags = {
    tenant: Flags.string({ summary: 'Tenant id.', required: true }),
    pem: Flags.boolean({ summary: 'Print the active public key as a PEM SPKI file and nothing else.' }),
    all: Flags.boolean({ summary: 'Also list retired keys.' }),
  };

  async run(): Promise<KeyView & { keys?: KeyView[] }> {
    const { flags } = await this.parse(KeyShow);
    const { active, all } = await this.withStore(flags, (store) => showKeys(store, flags.tenant));
    if (flags.pem) {
      if (!this.jsonEnabled()) process.stdout.write(active.public_key_pem);
    } else {
      const rows = (flags.all ? all : [active]).map((k) => [
        k.key_id,
        k.status,
        k.algorithm,
        k.public_key,
        k.created_at,
      ]);
      this.show(() => renderTable(['key id', 'status', 'algorithm', 'public key (base64)', 'created'], rows));
    }
    return flags.all ? { ...active, keys: all } : active;
  }
}
