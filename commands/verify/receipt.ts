import { Args, Flags } from '@oclif/core';
import { SvcCommand } from '../../src/cli/base-command.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { SvcError } from '../../src/core/errors.js';
import type { ReceiptReport } from '../../src/evidence/verify/receipt-check.js';
import { attestationFlags, attestationOptions } from '../../src/verifier/attestation-flags.js';
import { NO_KEY_MESSAGE, parseTrustedKey } from '../../src/verifier/trusted-keys.js';
import { renderReceiptReport, verifyReceiptFile } from '../../src/verifier/verify-receipt-file.js';

export default class VerifyReceipt extends SvcCommand {
  static override summary =
    'Verify a receipt with its inclusion proof offline against a public key you trust.';
  static override description =
    'FILE is the JSON answer of GET /v1/receipts/{id}?proof=true (`svc receipts show ID --proof --json`). The leaf is recomputed from the published entry fields, the RFC 6962 audit path is checked up to the head root, and the head signature under the given keys only; the head timestamp and cosignatures under --tsa-cert and --witness-key. A redacted entry proves its position, not its content. Published fields no proof binds (outcome, reason, intent, task_id, ...) are listed as unverified. Exit 0 pass, 1 fail, 2 could not run.';
  static override examples = [
    '<%= config.bin %> verify receipt receipt.json --public-key acme-journal.pub.pem',
    '<%= config.bin %> verify receipt receipt.json --public-key <base64> --witness-key w1=<base64> --require-witnesses 1 --json',
  ];
  static override args = {
    file: Args.string({ description: 'The receipt with its proof (JSON).', required: true }),
  };
  static override flags = {
    'public-key': Flags.string({
      summary: 'A trusted log key: base64 or hex (optionally ed25519:-prefixed) or a PEM file. Repeatable.',
      multiple: true,
    }),
    ...attestationFlags,
  };

  async run(): Promise<ReceiptReport & { file: string }> {
    const { args, flags } = await this.parse(VerifyReceipt);
    const keys = (flags['public-key'] ?? []).map((k) => parseTrustedKey(k));
    if (keys.length === 0) throw new SvcError('usage', NO_KEY_MESSAGE, { field: 'public-key' });
    const report = await verifyReceiptFile(args.file, { publicKeys: keys, ...attestationOptions(flags) });
    if (!this.jsonEnabled()) this.log(renderReceiptReport(args.file, report));
    process.exitCode = report.result === 'pass' ? EXIT.ok : EXIT.failure;
    return { ...report, file: args.file };
  }

  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    const result = await super.catch(err);
    process.exitCode = EXIT.usage;
    return result;
  }
}
