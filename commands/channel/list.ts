import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { channelView, type ChannelView } from '../../src/provisioning/channel.js';
import { requireTenant } from '../../src/provisioning/tenant.js';

export default class ChannelList extends DataDirCommand {
  static override summary = 'List the approval channels of the deployment, or of one tenant.';
  static override examples = [
    '<%= config.bin %> channel list',
    '<%= config.bin %> channel list --tenant acme --json',
  ];
  static override flags = { tenant: Flags.string({ summary: 'Only the channels of this tenant.' }) };

  async run(): Promise<{ channels: ChannelView[] }> {
    const { flags } = await this.parse(ChannelList);
    const channels = await this.withStore(flags, async (store) => {
      if (flags.tenant !== undefined) await requireTenant(store, flags.tenant);
      return (await store.channels.list(flags.tenant)).map(channelView);
    });
    this.log(
      renderTable(
        ['channel', 'tenant', 'kind', 'callback', 'proof'],
        channels.map((c) => [
          c.channel_id,
          c.tenant_id,
          c.kind,
          c.callback_path,
          c.kind === 'chat'
            ? `secret ${c.signing_secret_ref ?? ''}`
            : `aud ${c.app_id ?? ''}, iss ${c.issuer ?? ''}`,
        ]),
      ),
    );
    return { channels };
  }
}
