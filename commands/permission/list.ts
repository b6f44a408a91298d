import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { listPermissions, type PermissionView } from '../../src/provisioning/permission.js';

export default class PermissionList extends DataDirCommand {
  static override summary = "List a tenant's standing permissions.";
  static override examples = [
    '<%= config.bin %> permission list --tenant acme',
    '<%= config.bin %> permission list --tenant acme --actor crm-agent',
  ];
  static override flags = {
    tenant: Flags.string({ summary: 'Tenant id.', required: true }),
    actor: Flags.string({ summary: 'Only this actor’s permissions.' }),
    capability: Flags.string({ summary: 'Only permissions on this capability.' }),
  };

  async run(): Promise<{ permissions: PermissionView[] }> {
    const { flags } = await this.parse(PermissionList);
    const permissions = await this.withStore(flags, (store) =>
      listPermissions(store, {
        tenantId: flags.tenant,
        ...(flags.actor !== undefined ? { actorId: flags.actor } : {}),
        ...(flags.capability !== undefined ? { capability: flags.capability } : {}),
      }),
    );
    this.log(
      renderTable(
        ['actor', 'capability', 'granted'],
        permissions.map((p) => [p.actor_id, p.capability, p.granted_at]),
      ),
    );
    return { permissions };
  }
}
