import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { onePage, type Column } from '../../src/cli/list-output.js';
import { listPermissions, type PermissionView } from '../../src/provisioning/permission.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

const COLUMNS: Column<PermissionView>[] = [
  { header: 'actor', cell: (p) => p.actor_id },
  { header: 'capability', cell: (p) => p.capability },
  { header: 'granted', cell: (p) => p.granted_at },
];

export default class PermissionList extends DataDirCommand {
  static override summary = "List a tenant's standing permissions.";
  static override examples = [
    '<%= config.bin %> permission list --tenant acme',
    '<%= config.bin %> permission list --tenant acme --actor crm-agent',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    actor: Flags.string({ summary: 'Only this actor’s permissions.' }),
    capability: Flags.string({ summary: 'Only permissions on this capability.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(PermissionList);
    await this.withStore(flags, (store) =>
      this.list(
        onePage(
          listPermissions(store, {
            tenantId: flags.tenant,
            ...(flags.actor !== undefined ? { actorId: flags.actor } : {}),
            ...(flags.capability !== undefined ? { capability: flags.capability } : {}),
          }),
        ),
        COLUMNS,
      ),
    );
  }
}
