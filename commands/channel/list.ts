import { DataDirCommand } from '../../src/cli/base-command.js';
import { onePage, type Column } from '../../src/cli/list-output.js';
import { channelView, type ChannelView } from '../../src/provisioning/channel.js';
import { requireTenant } from '../../src/provisioning/references.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

const COLUMNS: Column<ChannelView>[] = [
  { header: 'channel', cell: (c) => c.channel_id },
  { header: 'tenant', cell: (c) => c.tenant_id },
  { header: 'kind', cell: (c) => c.kind },
  { header: 'callback', cell: (c) => c.callback_path },
  {
    header: 'proof',
    cell: (c) =>
      c.kind === 'chat'
        ? `secret ${c.signing_secret_ref ?? ''}`
        : `aud ${c.app_id ?? ''}, iss ${c.issuer ?? ''}`,
  },
];

export default class ChannelList extends DataDirCommand {
  static override summary = 'List the approval channels of the deployment, or of one tenant.';
  static override examples = [
    '<%= config.bin %> channel list',
    '<%= config.bin %> channel list --tenant acme --json',
  ];
  static override flags = { tenant: tenantFlag({ summary: 'Only the channels of this tenant.' }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(ChannelList);
    await this.withStore(flags, async (store) => {
      if (flags.tenant !== undefined) await requireTenant(store, flags.tenant);
      const channels = (await store.channels.list(flags.tenant)).map(channelView);
      await this.list(onePage(channels), COLUMNS);
    });
  }
}
