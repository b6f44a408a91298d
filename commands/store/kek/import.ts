import { DataDirCommand } from '../../../src/cli/base-command.js';
import { requiredKekFlags } from '../../../src/cli/kek-flags.js';
import { importFileKeys, type ImportResult } from '../../../src/provisioning/sealed-keys.js';
import { openStore } from '../../../src/store/open.js';

export default class StoreKekImport extends DataDirCommand {
  static override summary = "Seal the data dir's key files into the PostgreSQL store under --kek-file.";
  static override description =
    'For a PostgreSQL deployment made before sealed keys: each signing key file (checked against the public key the store records) and secrets.key are sealed under --kek-file and stored in the database. Keys already sealed are left alone; running it again seals what is left. From then on every replica needs --kek-file and no key files; remove the files once each replica runs with it.';
  static override examples = [
    'PGPASSWORD=... <%= config.bin %> store kek import --data-dir /var/lib/svc --store postgres://svc@db.internal/svc --kek-file /etc/svc/kek.key',
  ];
  static override flags = { ...requiredKekFlags };

  async run(): Promise<ImportResult> {
    const { flags } = await this.parse(StoreKekImport);
    const dir = this.dataDir(flags);
    const store = await openStore(dir.store, { applicationName: 'svc store kek import' });
    try {
      const r = await importFileKeys(dir, store, new Date());
      this.show(() =>
        [
          `Sealed ${r.sealed.length} keys under ${r.kek_id}; ${r.already_sealed} were sealed already.`,
          ...r.sealed.map(
            (k) =>
              `  ${k.kind === 'signing' ? `signing key ${k.key_id} of ${k.tenant_id}` : `secret key ${k.key_id}`}`,
          ),
          ...(r.missing_retired.length > 0
            ? [`Retired keys without a file (never sign again): ${r.missing_retired.join(', ')}`]
            : []),
        ].join('\n'),
      );
      return r;
    } finally {
      await store.close();
    }
  }
}
