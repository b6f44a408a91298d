import { Args } from '@oclif/core';
import { DaemonCommand } from '../../src/cli/daemon-command.js';
import { segment } from '../../src/cli/daemon-client.js';
import { renderRecord } from '../../src/cli/render.js';
import type { ReceiptView } from '../../src/daemon/schemas/receipt.js';

export default class ReceiptsShow extends DaemonCommand {
  static override summary = 'Show one receipt: the published fields of a journal record.';
  static override examples = ['<%= config.bin %> receipts show rcp_0123…'];
  static override args = { id: Args.string({ description: 'Receipt id.', required: true }) };

  async run(): Promise<ReceiptView> {
    const { args, flags } = await this.parse(ReceiptsShow);
    const receipt = await this.withDaemon(flags, (client) =>
      client.get<ReceiptView>(`/v1/receipts/${segment(args.id)}`),
    );
    this.show(() => renderRecord(receipt));
    return receipt;
  }
}
