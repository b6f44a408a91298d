import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { grantPermission, type PermissionView } from '../../src/provisioning/permission.js';
import type { PutResult } from '../../src/store/registry-ports.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class PermissionGrant extends DataDirCommand {
  static override summary = 'Grant an actor a standing permission to use a capability.';
  static override examples = [
    '<%= config.bin %> permission grant --tenant acme --actor crm-agent --capability crm.contacts',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    actor: Flags.string({ summary: 'A registered actor.', required: true }),
    capability: Flags.string({ summary: 'A registered capability.', required: true }),
  };

  async run(): Promise<PermissionView & { result: PutResult }> {
    const { flags } = await this.parse(PermissionGrant);
    const p = await this.withStore(flags, (store) =>
      grantPermission(
        store,
        { tenantId: flags.tenant, actorId: flags.actor, capability: flags.capability },
        new Date(),
      ),
    );
    this.log(
      p.result === 'created'
        ? `Granted ${p.actor_id} a standing permission on ${p.capability}`
        : `Unchanged: ${p.actor_id} has held a standing permission on ${p.capability} since ${p.granted_at}`,
    );
    return p;
  }
}
