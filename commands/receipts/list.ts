import { Flags } from '@oclif/core';
import { DaemonCommand, pageFlags } from '../../src/cli/daemon-command.js';
import { pages } from '../../src/cli/daemon-client.js';
import { morePages } from '../../src/cli/render.js';
import { renderTable } from '../../src/cli/table.js';
import type { ReceiptView } from '../../src/daemon/schemas/receipt.js';

export default class ReceiptsList extends DaemonCommand {
  static override summary =
    'List receipts in journal order, optionally of one task: how to reconcile an unknown outcome.';
  static override examples = [
    '<%= config.bin %> receipts list --task launch',
    '<%= config.bin %> receipts list --task launch --all --json',
  ];
  static override flags = {
    task: Flags.string({ summary: 'Only the receipts of this task.' }),
    ...pageFlags,
  };

  async run(): Promise<{ items: ReceiptView[]; next_cursor: string | null }> {
    const { flags } = await this.parse(ReceiptsList);
    const page = await this.withDaemon(flags, (client) =>
      pages(
        (cursor) =>
          client.get<{ items: ReceiptView[]; next_cursor: string | null }>('/v1/receipts', {
            task_id: flags.task,
            limit: flags.limit,
            cursor,
          }),
        { cursor: flags.cursor, all: flags.all },
      ),
    );
    this.log(
      renderTable(
        ['seq', 'receipt', 'kind', 'outcome', 'actor', 'capability', 'amount (USD)', 'task', 'occurred'],
        page.items.map((r) => [
          r.sequence,
          r.receipt_id,
          r.kind,
          r.outcome,
          r.actor_id,
          r.capability,
          r.amount_usd,
          r.task_id,
          r.occurred_at,
        ]),
      ),
    );
    const more = morePages(page.next_cursor);
    if (more) this.note(more);
    return page;
  }
}
