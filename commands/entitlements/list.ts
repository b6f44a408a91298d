import { Flags } from '@oclif/core';
import { ENTITLEMENT_COLUMNS, type Entitlement } from '../../src/cli/access.js';
import { DaemonCommand, pageFlags, pageLimit } from '../../src/cli/daemon-command.js';
import { pageStream, type Page } from '../../src/cli/list-output.js';
import { ENTITLEMENT_STATUSES } from '../../src/core/access.js';

export default class EntitlementsList extends DaemonCommand {
  static override summary =
    'List the entitlements you may see: your own, your agents’, those on capabilities you own (operators and auditors: all).';
  static override examples = [
    '<%= config.bin %> entitlements list --status active',
    '<%= config.bin %> entitlements list --actor crm-agent --all --json',
  ];
  static override flags = {
    status: Flags.string({
      summary: 'Only entitlements in this status.',
      options: [...ENTITLEMENT_STATUSES],
    }),
    actor: Flags.string({ summary: 'Only entitlements this actor holds.' }),
    ...pageFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(EntitlementsList);
    await this.withDaemon(flags, (client) =>
      this.list(
        pageStream(
          (cursor) =>
            client.get<Page<Entitlement>>('/v1/entitlements', {
              status: flags.status,
              actor_id: flags.actor,
              limit: pageLimit(flags),
              cursor,
            }),
          flags,
        ),
        ENTITLEMENT_COLUMNS,
      ),
    );
  }
}
