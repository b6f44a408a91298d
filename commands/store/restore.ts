import { Args } from '@oclif/core';
import { dataDirFlag, SvcCommand } from '../../src/cli/base-command.js';
import { restoreBackup, type BackupManifest } from '../../src/store/backup.js';
import { resolveDataDir } from '../../src/store/data-dir.js';
import { renderJournalChecks } from '../../src/store/journal-check-render.js';
import type { TenantJournalCheck } from '../../src/store/journal-check.js';

interface RestoreResult {
  data_dir: string;
  manifest: BackupManifest;
  tenants: TenantJournalCheck[];
  copy_from_source: string[];
}

export default class StoreRestore extends SvcCommand {
  static override baseFlags = { ...dataDirFlag };
  static override summary = 'Restore a backup from `svc store backup` into a new data dir, and check it.';
  static override description =
    "Refuses a target data dir that holds anything. Checks the file against the sha256 and size in FILE.manifest.json, copies it in, then checks it as a backup is checked and that each tenant's last signed head is the one the manifest names; on any failure the restored database is removed. The daemon needs the files the manifest lists as not included (signing keys, secrets.key, tls/): copy them into the data dir before starting it.";
  static override examples = [
    '<%= config.bin %> store restore /backups/svc.db --data-dir /var/lib/svc-restored',
  ];
  static override args = {
    file: Args.string({
      description: 'The backup file (its manifest is FILE.manifest.json).',
      required: true,
    }),
  };

  async run(): Promise<RestoreResult> {
    const { args, flags } = await this.parse(StoreRestore);
    const target = resolveDataDir(flags['data-dir'], process.env, process.cwd());
    const { root, manifest, checks } = await restoreBackup(args.file, target);
    this.show(() =>
      [
        `Restored ${args.file} (sha256 ${manifest.sha256}, taken ${manifest.created_at}) into ${root}; it passed the integrity check.`,
        ...renderJournalChecks(checks),
        ...(manifest.not_included.length === 0
          ? []
          : [
              `Before starting the daemon, copy these from the source data dir into ${root} (mode 0600, directories 0700): ${manifest.not_included.join(', ')}`,
            ]),
        `Then start the daemon on it: svc daemon start --data-dir ${root}`,
      ].join('\n'),
    );
    return { data_dir: root, manifest, tenants: checks, copy_from_source: manifest.not_included };
  }
}
