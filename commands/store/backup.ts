import { Flags } from '@oclif/core';
import { dataDirFlag, SvcCommand } from '../../src/cli/base-command.js';
import { backupDataDir, manifestPath, type BackupManifest } from '../../src/store/backup.js';
import { DataDir, resolveDataDir } from '../../src/store/data-dir.js';
import { renderJournalChecks } from '../../src/store/journal-check-render.js';

interface BackupResult {
  file: string;
  manifest_file: string;
  manifest: BackupManifest;
}

/** Not a DataDirCommand: it copies the data dir's SQLite file, whatever `--store` says elsewhere. */
export default class StoreBackup extends SvcCommand {
  static override baseFlags = { ...dataDirFlag };
  static override summary = "Copy a SQLite data dir's database while the daemon runs, and check the copy.";
  static override description =
    "Takes a consistent copy with SQLite's online backup API (the daemon keeps deciding), then checks it before keeping it: PRAGMA integrity_check, and every tenant's journal chain and Merkle root recomputed from its entries against its last signed head. Writes FILE and FILE.manifest.json (svc version, time, the file's sha256 and size, each tenant's entries and last signed head) through temp names, so a failed backup leaves nothing behind. The signing keys, the secret key (secrets.key), the TLS material (tls/) and tenant assets are NOT in the copy: the manifest lists them under not_included; copy them separately and keep them as safe as the keys they are. A PostgreSQL store is backed up with pg_dump.";
  static override examples = [
    '<%= config.bin %> store backup --to /backups/svc-2026-11-26.db',
    '<%= config.bin %> store backup --data-dir /var/lib/svc --to /backups/svc.db --force --json',
  ];
  static override flags = {
    to: Flags.string({ summary: 'The backup file to write (outside the data dir).', required: true }),
    force: Flags.boolean({
      summary: 'Replace the backup file and its manifest if they exist.',
      default: false,
    }),
  };

  async run(): Promise<BackupResult> {
    const { flags } = await this.parse(StoreBackup);
    const dir = new DataDir(resolveDataDir(flags['data-dir'], process.env, process.cwd()));
    const { file, manifest, checks } = await backupDataDir(dir, flags.to, {
      force: flags.force,
      version: this.config.version,
      now: () => new Date(),
    });
    this.show(() =>
      [
        `Backed up ${dir.database} to ${file} (${manifest.size} bytes, sha256 ${manifest.sha256}); the copy passed the integrity check.`,
        ...renderJournalChecks(checks),
        `Manifest: ${manifestPath(file)}`,
        manifest.not_included.length === 0
          ? 'The data dir holds no key files yet.'
          : `Not in the backup (copy these from ${dir.root} yourself, keep them private): ${manifest.not_included.join(', ')}`,
      ].join('\n'),
    );
    return { file, manifest_file: manifestPath(file), manifest };
  }
}
