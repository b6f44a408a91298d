import { SvcError } from '../core/errors.js';
import { DataDir } from './data-dir.js';
import { migrateToPostgres, type MigrationProgress, type MigrationReport } from './migrate-copy.js';
import { isPostgresUrl, redactUrl } from './postgres/connection-url.js';
import { PgDb } from './postgres/database.js';
import { SqliteStore } from './sqlite/store.js';
import { allSigningKeys } from './keyring.js';
import type { SigningKeyRecord } from './ports.js';
import type { SealedKeyRow } from './sealed-key-ports.js';

/**
 * `svc store migrate`: the data dir's SQLite database (whatever --store says for other
 * commands) copied into the PostgreSQL database at `url` and proved (migrate-copy.ts).
 * Errors and the returned target name the URL without its password.
 */
export async function migrateDataDir(
  root: string,
  url: string,
  progress: MigrationProgress = {},
  /** `--seal-keys`: the data dir's key files sealed under the KEK, from the source's key rows */
  sealKeys?: (dir: DataDir, keys: SigningKeyRecord[]) => SealedKeyRow[],
): Promise<{ target: string; report: MigrationReport; sealed: SealedKeyRow[] }> {
  if (!isPostgresUrl(url)) {
    throw new SvcError('usage', `--to must be a postgres:// or postgresql:// URL, got ${redactUrl(url)}`, {
      field: 'to',
      remedy: 'pass --to postgres://USER@HOST:PORT/DATABASE (the password from PGPASSWORD or ~/.pgpass)',
    });
  }
  const dir = new DataDir(root, 'sqlite');
  if (!dir.exists()) {
    throw new SvcError('not_initialized', `no SQLite database in the data dir ${dir.root}`, {
      field: 'data-dir',
      remedy: 'point --data-dir (or SVC_HOME) at the data dir whose database you are moving',
    });
  }
  const pg = await PgDb.connect(url, { poolSize: 2, statementTimeoutMs: 600_000 });
  try {
    const store = SqliteStore.open(dir.database);
    try {
      // Sealed (and every file checked) before the copy starts: a bad key file writes nothing.
      const sealed = sealKeys ? sealKeys(dir, await allSigningKeys(store)) : [];
      return {
        target: redactUrl(url),
        report: await migrateToPostgres(store.db, pg, progress, { sealedKeys: sealed }),
        sealed,
      };
    } finally {
      await store.close();
    }
  } finally {
    await pg.close();
  }
}
