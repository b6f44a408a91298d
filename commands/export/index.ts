import { kekFlags } from '../../src/cli/kek-flags.js';
import { pkcs11Flags } from '../../src/cli/pkcs11-flags.js';
import { Flags } from '@oclif/core';
import cliProgress from 'cli-progress';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { SvcError } from '../../src/core/errors.js';
import { writeAtomically } from '../../src/export/export-file.js';
import { exportLog, type ExportOptions, type ExportSummary } from '../../src/export/log-export.js';
import { Keyring } from '../../src/store/keyring.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import { counted } from '../../src/cli/plural.js';

export default class Export extends DataDirCommand {
  static override summary =
    "Export a tenant's journal as a signed svc.export/v1 file for offline verification.";
  static override description =
    'Streams every entry in sequence order with the stored anchors after their entries, under a tree head signed now over all of them. Memory stays flat whatever the log size. Verify the file with `svc verify FILE --public-key KEY`.';
  static override examples = [
    '<%= config.bin %> export --tenant acme --out acme.jsonl',
    '<%= config.bin %> export --tenant acme | gzip > acme.jsonl.gz',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    out: Flags.string({ summary: 'Write the export to this file (default: stdout).' }),
    ...kekFlags,
    ...pkcs11Flags,
  };

  async run(): Promise<ExportSummary & { file: string | null }> {
    const { flags } = await this.parse(Export);
    if (this.jsonEnabled() && flags.out === undefined) {
      throw new SvcError('usage', '--json needs --out: without it the export itself is written to stdout');
    }
    const bar =
      process.stderr.isTTY && !this.jsonEnabled()
        ? new cliProgress.SingleBar({ etaBuffer: 50 }, cliProgress.Presets.shades_classic)
        : undefined;
    let started = false;
    const opts: ExportOptions = {
      now: () => new Date(),
      ...(bar
        ? {
            onProgress: (done: number, total: number) => {
              if (!started) bar.start(total, 0);
              started = true;
              bar.update(done);
            },
          }
        : {}),
    };
    const summary = await this.withStore(flags, (store, dir) => {
      const keyring = new Keyring(dir, store);
      if (flags.out === undefined)
        return exportLog(store, keyring, flags.tenant, process.stdout, { ...opts, keepOpen: true });
      return writeAtomically(flags.out, (out) => exportLog(store, keyring, flags.tenant, out, opts));
    }).finally(() => bar?.stop());
    const anchors = summary.pre_anchor
      ? 'no anchors yet (pre_anchor)'
      : counted(summary.anchor_count, 'anchor', 'anchors');
    this.note(
      `Exported ${counted(summary.entry_count, 'entry', 'entries')} of tenant ${summary.tenant_id}, ${anchors}, head signed by ${summary.key_id}${flags.out ? ` to ${flags.out}` : ''}.`,
    );
    const keys = summary.key_ids;
    this.note(
      `Heads in this file are signed by ${keys.length === 1 ? 'key' : `${keys.length} keys`} ${keys.join(', ')}: ` +
        `the auditor pins ${keys.length === 1 ? 'it' : 'each'} (\`svc key show --tenant ${summary.tenant_id} --all\` lists retired keys too).`,
    );
    this.note(
      `Verify with: svc verify ${flags.out ?? 'FILE'} ${keys.map((k) => `--public-key <public key of ${k}>`).join(' ')}`,
    );
    return { ...summary, file: flags.out ?? null };
  }
}
