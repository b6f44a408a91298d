import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../../src/cli/base-command.js';
import { requiredKekFlags } from '../../../src/cli/kek-flags.js';
import { rotateKek, type KekRotation } from '../../../src/provisioning/sealed-keys.js';
import { openStore } from '../../../src/store/open.js';

export default class StoreKekRotate extends DataDirCommand {
  static override summary =
    'Re-seal every key in the database under --kek-file, without stopping the replicas.';
  static override description =
    'Opens each sealed row with the KEK it names (--previous-kek-file, the one being replaced) and seals it again under --kek-file, one transaction per batch; replicas keep serving throughout. Run it once every replica runs with both KEKs (--kek-file NEW --previous-kek-file OLD); afterwards restart them with --kek-file NEW alone. Running it again re-seals nothing.';
  static override examples = [
    'PGPASSWORD=... <%= config.bin %> store kek rotate --store postgres://svc@db.internal/svc --kek-file /etc/svc/kek-new.key --previous-kek-file /etc/svc/kek-old.key',
  ];
  static override flags = {
    ...requiredKekFlags,
    batch: Flags.integer({ summary: 'Rows re-sealed per transaction.', default: 100, min: 1, max: 10_000 }),
  };

  async run(): Promise<KekRotation> {
    const { flags } = await this.parse(StoreKekRotate);
    const dir = this.dataDir(flags);
    // The database alone is enough: an operator's host needs no data dir to rotate.
    const store = await openStore(dir.store, { applicationName: 'svc store kek rotate' });
    try {
      const r = await rotateKek(dir, store, { batch: flags.batch, now: () => new Date() });
      this.show(() =>
        [
          `Re-sealed ${r.resealed} rows under ${r.kek_id} in ${r.batches} transactions.`,
          ...r.keks.map((k) => `  ${k.kek_id}: ${k.rows} rows`),
        ].join('\n'),
      );
      return r;
    } finally {
      await store.close();
    }
  }
}
