import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { revokePermission } from '../../src/provisioning/permission.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class PermissionRevoke extends DataDirCommand {
  static override summary =
    "Revoke an actor's standing permission on a capability; new decisions are refused at once.";
  static override examples = [
    '<%= config.bin %> permission revoke --tenant acme --actor crm-agent --capability crm.contacts',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    actor: Flags.string({ summary: 'The actor holding the permission.', required: true }),
    capability: Flags.string({ summary: 'The capability.', required: true }),
  };

  async run(): Promise<{ tenant_id: string; actor_id: string; capability: string; revoked: true }> {
    const { flags } = await this.parse(PermissionRevoke);
    const r = await this.withStore(flags, (store) =>
      revokePermission(store, { tenantId: flags.tenant, actorId: flags.actor, capability: flags.capability }),
    );
    this.log(`Revoked ${r.actor_id}'s standing permission on ${r.capability}`);
    return r;
  }
}
