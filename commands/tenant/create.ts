import { kekFlags } from '../../src/cli/kek-flags.js';
import { pkcs11Flags } from '../../src/cli/pkcs11-flags.js';
import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { createTenant, type CreatedTenant } from '../../src/provisioning/tenant.js';

export default class TenantCreate extends DataDirCommand {
  static override summary =
    'Create a tenant with its own journal signing key (and optionally its first administrator).';
  static override examples = ['<%= config.bin %> tenant create --id acme --admin alice'];
  static override flags = {
    id: Flags.string({ summary: 'Tenant id (a slug).', required: true }),
    admin: Flags.string({ summary: 'Also create this human administrator and print a token for it once.' }),
    ...kekFlags,
    ...pkcs11Flags,
  };

  async run(): Promise<CreatedTenant> {
    const { flags } = await this.parse(TenantCreate);
    const result = await this.withStore(flags, (store, dir) =>
      createTenant(dir, store, {
        tenantId: flags.id,
        ...(flags.admin ? { adminId: flags.admin } : {}),
        now: new Date(),
      }),
    );
    this.log(`Created tenant ${result.tenant_id} with signing key ${result.key_id}`);
    if (result.admin_token)
      this.log(`Administrator ${result.admin_id} token (shown once):\n  ${result.admin_token}`);
    return result;
  }
}
