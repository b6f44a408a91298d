import { DataDirCommand } from '../../src/cli/base-command.js';
import { renderJournalChecks } from '../../src/store/journal-check-render.js';
import { checkJournals, type TenantJournalCheck } from '../../src/store/journal-check.js';
import { openStore } from '../../src/store/open.js';
import { redactUrl } from '../../src/store/postgres/connection-url.js';

interface StoreVerifyResult {
  store: string;
  tenants: TenantJournalCheck[];
}

export default class StoreVerify extends DataDirCommand {
  static override summary = "Check every tenant's journal in a store against its last signed head.";
  static override description =
    "Recomputes each tenant's journal chain and Merkle root from its stored entries and checks them against its last signed head, with the same verifier as `svc verify`, without signing anything. On a data dir's SQLite database, or on a PostgreSQL database (--store), for example one made with pg_restore: that needs no data dir, only the database. Fails with journal_corrupt on the first tenant that does not match.";
  static override examples = [
    '<%= config.bin %> store verify --data-dir /var/lib/svc',
    'PGPASSWORD=... <%= config.bin %> store verify --store postgres://svc@db.internal/svc_restored --json',
  ];

  async run(): Promise<StoreVerifyResult> {
    const { flags } = await this.parse(StoreVerify);
    const dir = this.dataDir(flags);
    // A restored PostgreSQL database is checked on its own: the public keys are in it.
    const store = dir.onPostgres ? await openStore(dir.store) : await dir.openStore();
    try {
      const tenants = await checkJournals(store);
      const where = dir.onPostgres ? redactUrl(dir.store) : dir.store;
      this.show(() => [`Verified ${where}:`, ...renderJournalChecks(tenants)].join('\n'));
      return { store: where, tenants };
    } finally {
      await store.close();
    }
  }
}
