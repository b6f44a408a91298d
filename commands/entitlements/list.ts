import { Flags } from '@oclif/core';
import { renderEntitlements, type Entitlement } from '../../src/cli/access.js';
import { DaemonCommand, pageFlags } from '../../src/cli/daemon-command.js';
import { pages } from '../../src/cli/daemon-client.js';
import { morePages } from '../../src/cli/render.js';
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

  async run(): Promise<{ items: Entitlement[]; next_cursor: string | null }> {
    const { flags } = await this.parse(EntitlementsList);
    const page = await this.withDaemon(flags, (client) =>
      pages(
        (cursor) =>
          client.get<{ items: Entitlement[]; next_cursor: string | null }>('/v1/entitlements', {
            status: flags.status,
            actor_id: flags.actor,
            limit: flags.limit,
            cursor,
          }),
        { cursor: flags.cursor, all: flags.all },
      ),
    );
    this.log(renderEntitlements(page.items));
    const more = morePages(page.next_cursor);
    if (more) this.note(more);
    return page;
  }
}
