import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { pinnedKey, showKeys, type KeyView, type PinnedKey } from '../../src/provisioning/signing-key.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class KeyShow extends DataDirCommand {
  static override summary = "Show a tenant's journal signing key for auditors to pin.";
  static override description =
    'After `svc key rotate`, older anchors stay signed by the retired key: `--all` lists every key an export may name, active and retired, which is what an auditor pins.';
  static override examples = [
    '<%= config.bin %> key show --tenant acme',
    '<%= config.bin %> key show --tenant acme --all --json',
    '<%= config.bin %> key show --tenant acme --pem > acme-journal.pub.pem',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    pem: Flags.boolean({ summary: 'Print the active public key as a PEM SPKI file and nothing else.' }),
    all: Flags.boolean({ summary: 'Every key an export may name: the active key and the retired ones.' }),
  };

  async run(): Promise<KeyView & { keys?: PinnedKey[] }> {
    const { flags } = await this.parse(KeyShow);
    const { active, all } = await this.withStore(flags, (store) => showKeys(store, flags.tenant));
    if (flags.pem) {
      if (!this.jsonEnabled()) process.stdout.write(active.public_key_pem);
      return active;
    }
    const keys = (flags.all ? all : [active]).map(pinnedKey);
    this.show(() =>
      renderTable(
        ['key id', 'status', 'algorithm', 'public key (base64)', 'created', 'retired'],
        keys.map((k) => [k.key_id, k.status, k.algorithm, k.public_key, k.created_at, k.retired_at]),
      ),
    );
    if (flags.all) {
      this.note(`Verify with: svc verify FILE ${keys.map((k) => `--public-key ${k.public_key}`).join(' ')}`);
    } else if (all.length > 1) {
      this.note(`${all.length - 1} retired key(s) not shown: older anchors need them; see --all.`);
    }
    return flags.all ? { ...active, keys } : active;
  }
}
