import { Args, Flags } from '@oclif/core';
import { DaemonCommand } from '../../src/cli/daemon-command.js';
import { segment } from '../../src/cli/daemon-client.js';
import { renderRecord } from '../../src/cli/render.js';
import type { ReceiptView } from '../../src/api/receipt.js';

export default class ReceiptsShow extends DaemonCommand {
  static override summary = 'Show one receipt: the published fields of a journal record.';
  static override examples = [
    '<%= config.bin %> receipts show rcp_0123…',
    '<%= config.bin %> receipts show rcp_0123… --proof --json > receipt.json   # then: svc verify receipt receipt.json',
  ];
  static override args = { id: Args.string({ description: 'Receipt id.', required: true }) };
  static override flags = {
    proof: Flags.boolean({
      summary: 'Add the entry, its inclusion proof and the latest signed head (for `svc verify receipt`).',
    }),
  };

  async run(): Promise<ReceiptView> {
    const { args, flags } = await this.parse(ReceiptsShow);
    const receipt = await this.withDaemon(flags, (client) =>
      client.get<ReceiptView>(`/v1/receipts/${segment(args.id)}${flags.proof ? '?proof=true' : ''}`),
    );
    const { proof, ...shown } = receipt as ReceiptView & { proof?: unknown };
    this.show(() => {
      const text = renderRecord(shown);
      if (!flags.proof) return text;
      return `${text}\n${proof === null ? 'proof: none yet (no anchor covers this entry)' : 'proof: included (use --json)'}`;
    });
    return receipt;
  }
}
