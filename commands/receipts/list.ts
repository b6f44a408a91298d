import { Flags } from '@oclif/core';
import { DaemonCommand, pageFlags, pageLimit } from '../../src/cli/daemon-command.js';
import { pageStream, type Column, type Page } from '../../src/cli/list-output.js';
import type { ReceiptView } from '../../src/api/receipt.js';

const COLUMNS: Column<ReceiptView>[] = [
  { header: 'seq', cell: (r) => r.sequence },
  { header: 'receipt', cell: (r) => r.receipt_id },
  { header: 'kind', cell: (r) => r.kind },
  { header: 'outcome', cell: (r) => r.outcome },
  { header: 'actor', cell: (r) => r.actor_id },
  { header: 'capability', cell: (r) => r.capability },
  { header: 'amount (USD)', cell: (r) => r.amount_usd },
  { header: 'task', cell: (r) => r.task_id },
  { header: 'occurred', cell: (r) => r.occurred_at },
];

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

  async run(): Promise<void> {
    const { flags } = await this.parse(ReceiptsList);
    await this.withDaemon(flags, (client) =>
      this.list(
        pageStream(
          (cursor) =>
            client.get<Page<ReceiptView>>('/v1/receipts', {
              task_id: flags.task,
              limit: pageLimit(flags),
              cursor,
            }),
          flags,
        ),
        COLUMNS,
      ),
    );
  }
}
