import { Flags } from '@oclif/core';
import { CARD_COLUMNS, type ManagerCard } from '../../src/cli/access.js';
import { DaemonCommand } from '../../src/cli/daemon-command.js';
import { onePage } from '../../src/cli/list-output.js';
import { CARD_STATUSES } from '../../src/core/access.js';

export default class CardsList extends DaemonCommand {
  static override summary = 'List your manager cards: the access requests waiting for your decision.';
  static override examples = [
    '<%= config.bin %> cards list',
    '<%= config.bin %> cards list --status approved --json',
  ];
  static override flags = {
    status: Flags.string({ summary: 'Cards in this status (default pending).', options: [...CARD_STATUSES] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(CardsList);
    // The daemon answers manager cards as one plain array (interface spec): one page.
    await this.withDaemon(flags, (client) =>
      this.list(
        onePage(client.get<ManagerCard[]>('/v1/manager-cards', { status: flags.status })),
        CARD_COLUMNS,
      ),
    );
  }
}
