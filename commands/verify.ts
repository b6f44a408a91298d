import { Args, Flags } from '@oclif/core';
import { SvcCommand } from '../src/cli/base-command.js';
import { EXIT } from '../src/cli/exit-codes.js';
import { SvcError } from '../src/core/errors.js';
import { renderReport, reportJson } from '../src/verifier/render.js';
import { NO_KEY_MESSAGE, parseTrustedKey } from '../src/verifier/trusted-keys.js';
import { verifyFile } from '../src/verifier/verify-file.js';
import { attestationFlags, attestationOptions } from '../src/verifier/attestation-flags.js';

export default class Verify extends SvcCommand {
  static override summary = 'Verify an svc.export/v1 file offline against a public key you trust.';
  static override description =
    'Checks every rule of the export format: canonical lines, the schema, sequences, leaves, the hash chain, the Merkle roots of every anchor and of the header, signatures under the given keys only, and redactions. It keeps going after a finding, so one run lists them all, each with its line. Exit 0 pass, 1 fail, 2 could not run (unreadable file, no trusted key, bad flag). Also installed as `svc-verify`.';
  static override examples = [
    '<%= config.bin %> verify acme.jsonl --public-key 11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=',
    '<%= config.bin %> verify acme.jsonl --public-key acme-journal.pub.pem --require-anchors --json',
    '<%= config.bin %> verify acme.jsonl --public-key acme-journal.pub.pem --tsa-cert tsa-root.pem --witness-key w1=<base64> --require-witnesses 1',
    'svc-verify acme.jsonl --public-key ed25519:d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
  ];
  static override args = { file: Args.string({ description: 'The export file.', required: true }) };
  static override flags = {
    'public-key': Flags.string({
      summary:
        'A trusted log key: base64 or hex (optionally ed25519:-prefixed) or a PEM file. Repeatable: after a key rotation, pass every key the file names (`svc key show --all`).',
      multiple: true,
    }),
    'require-anchors': Flags.boolean({
      summary: 'Fail an export that has no anchors, even one marked pre_anchor.',
    }),
    ...attestationFlags,
  };

  async run(): Promise<ReturnType<typeof reportJson>> {
    const { args, flags } = await this.parse(Verify);
    const keys = (flags['public-key'] ?? []).map((k) => parseTrustedKey(k));
    if (keys.length === 0) throw new SvcError('usage', NO_KEY_MESSAGE, { field: 'public-key' });
    const report = await verifyFile(args.file, {
      publicKeys: keys,
      requireAnchors: flags['require-anchors'],
      ...attestationOptions(flags),
    });
    this.show(() => renderReport(args.file, report));
    process.exitCode = report.result === 'pass' ? EXIT.ok : EXIT.failure;
    return reportJson(args.file, report);
  }

  // §9: whatever stopped the run (no key, an unreadable file, a bad flag) is "could not run", 2.
  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    const result = await super.catch(err);
    process.exitCode = EXIT.usage;
    return result;
  }
}
