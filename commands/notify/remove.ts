import { Args } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import { removeDestination } from '../../src/provisioning/notify.js';

export default class NotifyRemove extends DataDirCommand {
  static override summary =
    'Remove a notification destination and its secret; its undelivered events end as disabled.';
  static override examples = ['<%= config.bin %> notify remove ops-hook --tenant acme'];
  static override args = { id: Args.string({ description: 'Destination id.', required: true }) };
  static override flags = { tenant: tenantFlag({ required: true }) };

  async run(): Promise<{ tenant_id: string; destination_id: string; removed: true }> {
    const { args, flags } = await this.parse(NotifyRemove);
    const removed = await this.withStore(flags, (store) =>
      removeDestination(store, { tenantId: flags.tenant, id: args.id }),
    );
    this.log(`Removed notification destination ${removed.destination_id} of tenant ${removed.tenant_id}`);
    return removed;
  }
}
