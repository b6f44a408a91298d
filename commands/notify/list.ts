import { DataDirCommand } from '../../src/cli/base-command.js';
import { onePage, type Column } from '../../src/cli/list-output.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import { listDestinations, type DestinationView } from '../../src/provisioning/notify.js';

const COLUMNS: Column<DestinationView>[] = [
  { header: 'destination', cell: (d) => d.destination_id },
  { header: 'kind', cell: (d) => d.kind },
  { header: 'url', cell: (d) => d.url },
  { header: 'events', cell: (d) => d.events.join(' ') },
  { header: 'state', cell: (d) => (d.enabled ? 'enabled' : `disabled: ${d.disabled_reason ?? ''}`) },
];

export default class NotifyList extends DataDirCommand {
  static override summary = "List a tenant's notification destinations (never their secrets).";
  static override examples = [
    '<%= config.bin %> notify list --tenant acme',
    '<%= config.bin %> notify list --tenant acme --json',
  ];
  static override flags = { tenant: tenantFlag({ required: true }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(NotifyList);
    await this.withStore(flags, async (store) => {
      await this.list(onePage(await listDestinations(store, flags.tenant)), COLUMNS);
    });
  }
}
