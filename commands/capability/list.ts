import { DataDirCommand } from '../../src/cli/base-command.js';
import { onePage, type Column } from '../../src/cli/list-output.js';
import { listCapabilities, type CapabilityView } from '../../src/provisioning/capability.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

const COLUMNS: Column<CapabilityView>[] = [
  { header: 'name', cell: (c) => c.name },
  { header: 'tier', cell: (c) => c.tier },
  {
    header: 'custody',
    cell: (c) => (c.custody === 'brokered' ? `brokered (${c.surface}/${c.operation})` : c.custody),
  },
  { header: 'actions', cell: (c) => c.actions.join(', ') },
  { header: 'cost USD', cell: (c) => c.cost_usd },
  { header: 'irreversible', cell: (c) => (c.irreversible ? 'yes' : 'no') },
  { header: 'requestable', cell: (c) => (c.requestable ? 'yes' : 'no') },
  { header: 'approvers', cell: (c) => c.approvers.join(', ') },
];

export default class CapabilityList extends DataDirCommand {
  static override summary = "List a tenant's registered capabilities.";
  static override examples = ['<%= config.bin %> capability list --tenant acme'];
  static override flags = { tenant: tenantFlag({ required: true }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(CapabilityList);
    await this.withStore(flags, (store) =>
      this.list(onePage(listCapabilities(store, flags.tenant)), COLUMNS),
    );
  }
}
