import { Args } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { removeChannel } from '../../src/provisioning/channel.js';

export default class ChannelRemove extends DataDirCommand {
  static override summary =
    'Remove an approval channel; its callbacks are refused (404) from the next request on.';
  static override examples = ['<%= config.bin %> channel remove ops-chat'];
  static override args = { id: Args.string({ description: 'Channel id.', required: true }) };

  async run(): Promise<{ channel_id: string; removed: true }> {
    const { args, flags } = await this.parse(ChannelRemove);
    await this.withStore(flags, (store) => removeChannel(store, args.id));
    this.log(`Removed approval channel ${args.id}`);
    return { channel_id: args.id, removed: true };
  }
}
