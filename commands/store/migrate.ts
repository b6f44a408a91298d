import { Flags } from '@oclif/core';
import { dataDirFlag, SvcCommand } from '../../src/cli/base-command.js';
import { resolveDataDir } from '../../src/store/data-dir.js';
import { migrateDataDir } from '../../src/store/migrate-data-dir.js';
import { counted } from '../../src/cli/plural.js';
import { kekFlags } from '../../src/cli/kek-flags.js';
import { fileKeySealer } from '../../src/provisioning/sealed-keys.js';

interface MigrateResult {
  target: string;
  tables: { table: string; rows: number }[];
  /** `--seal-keys`: the keys sealed into the database */
  sealed_keys: { kind: 'signing' | 'secrets'; tenant_id: string | null; key_id: string; kek_id: string }[];
  tenants: { tenant_id: string; entries: number; export_lines: number; proof: 'ok' }[];
}

/**
 * Not a DataDirCommand: its source is always the data dir's SQLite file, whatever
 * `--store` or `$SVC_STORE` say for the other commands.
 */
export default class StoreMigrate extends SvcCommand {
  static override baseFlags = { ...dataDirFlag };
  static override summary =
    "Copy a SQLite data dir's database into an empty PostgreSQL database and prove the copy.";
  static override description =
    "Copies every table in dependency order in one PostgreSQL transaction, streaming rows in batches, then reads both back and compares every row byte for byte before it commits (the target ends up a copy or unchanged), then produces each tenant's export from both stores and compares them line by line: identical except the header's fresh head. Refuses a target that already holds data. Stop the daemon first: writes made after the copy starts are not in it. Signing keys and the secret key stay files in the data dir, unless --seal-keys carries them into the database sealed under --kek-file.";
  static override examples = [
    '<%= config.bin %> store migrate --to postgres://svc@db.internal/svc',
    'PGPASSWORD=... <%= config.bin %> store migrate --data-dir /var/lib/svc --to postgres://svc@db.internal/svc --json',
  ];
  static override flags = {
    to: Flags.string({
      summary: 'The empty PostgreSQL database to copy into (postgres://user@host:port/database).',
      required: true,
    }),
    'seal-keys': Flags.boolean({
      summary:
        "Also carry the data dir's signing key files and secret key into the database, sealed under --kek-file, in the same transaction; replicas then need only the KEK.",
      dependsOn: ['kek-file'],
    }),
    'kek-file': kekFlags['kek-file'],
  };

  async run(): Promise<MigrateResult> {
    const { flags } = await this.parse(StoreMigrate);
    const { target, report, sealed } = await migrateDataDir(
      resolveDataDir(flags['data-dir'], process.env, process.cwd()),
      flags.to,
      { onTable: (table, rows) => this.note(`copied ${table}: ${rows} rows`) },
      flags['seal-keys'] && flags['kek-file'] !== undefined ? fileKeySealer(flags['kek-file']) : undefined,
    );
    const total = report.tables.reduce((n, t) => n + t.rows, 0);
    if (sealed.length > 0)
      this.note(`sealed ${sealed.length} keys into the database under ${sealed[0]!.kekId}`);
    this.show(() =>
      [
        `Copied ${report.tables.length} tables (${total} rows) into ${target} and compared every row.`,
        ...report.tenants.map(
          (t) =>
            `tenant ${t.tenantId}: ${counted(t.entries, 'entry', 'entries')} copied, proof OK (export identical: ${counted(t.exportLines, 'line', 'lines')} after the header)`,
        ),
      ].join('\n'),
    );
    return {
      target,
      tables: report.tables,
      sealed_keys: sealed.map((k) => ({
        kind: k.kind,
        tenant_id: k.kind === 'signing' ? k.tenantId : null,
        key_id: k.keyId,
        kek_id: k.kekId,
      })),
      tenants: report.tenants.map((t) => ({
        tenant_id: t.tenantId,
        entries: t.entries,
        export_lines: t.exportLines,
        proof: 'ok' as const,
      })),
    };
  }
}
