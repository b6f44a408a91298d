import { kekFlags } from '../../src/cli/kek-flags.js';
import { pkcs11Flags } from '../../src/cli/pkcs11-flags.js';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { rotateKey, type KeyView } from '../../src/provisioning/signing-key.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class KeyRotate extends DataDirCommand {
  static override summary =
    'Make a new journal signing key for a tenant; later heads use it, older ones keep their key id.';
  static override examples = ['<%= config.bin %> key rotate --tenant acme'];
  static override flags = { tenant: tenantFlag({ required: true }), ...kekFlags, ...pkcs11Flags };

  async run(): Promise<KeyView> {
    const { flags } = await this.parse(KeyRotate);
    const key = await this.withStore(flags, (store, dir) => rotateKey(dir, store, flags.tenant, new Date()));
    this.log(`New signing key ${key.key_id} for tenant ${key.tenant_id}: ${key.public_key}`);
    this.note(
      `Older anchors stay signed by the retired key: auditors pin every key, old and new (\`svc key show --tenant ${key.tenant_id} --all\`).`,
    );
    return key;
  }
}
