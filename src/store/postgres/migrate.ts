import { SvcError } from '../../core/errors.js';
import type { PgDb } from './database.js';
import { PG_MIGRATIONS } from './schema.js';

/**
 * A fixed key for the session advisory lock migrations run under. Replicas starting
 * together queue on it: the first applies what is pending, the others then find nothing
 * to do. Derived like the tenant locks (locks.ts), in the same key space.
 */
const MIGRATION_LOCK = "hashtextextended('svc:migrations', 0)";

/**
 * Apply every pending migration, each in its own transaction with its `schema_migrations`
 * row, under the migration lock. Returns the schema version the database is at.
 * `migrations` is for tests; the product always applies PG_MIGRATIONS.
 */
export async function migrate(db: PgDb, migrations: readonly string[] = PG_MIGRATIONS): Promise<number> {
  const client = await db.pool.connect();
  // See PgDb.tx: a dropped connection must not crash the process; the query rejects anyway.
  const ignore = (): void => undefined;
  client.on('error', ignore);
  let broken: Error | undefined;
  try {
    await client.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      // Created under the lock: CREATE TABLE IF NOT EXISTS is not safe against a concurrent twin.
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at TEXT NOT NULL)',
      );
      const rows = await client.query<{ v: string | null }>(
        'SELECT max(version) AS v FROM schema_migrations',
      );
      const current = Number(rows.rows[0]?.v ?? 0);
      if (current > migrations.length) {
        throw new SvcError(
          'unavailable',
          `the database is at schema version ${current}, newer than this svc understands (${migrations.length})`,
          { remedy: 'upgrade svc to the version that wrote this database' },
        );
      }
      for (let v = current + 1; v <= migrations.length; v++) {
        await client.query('BEGIN');
        try {
          await client.query(migrations[v - 1] as string);
          await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
            v,
            new Date().toISOString(),
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw err;
        }
      }
      return migrations.length;
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  } catch (err) {
    // A connection that failed mid-migration may still hold the lock or a transaction:
    // destroying it releases both on the server.
    if (!(err instanceof SvcError)) broken = err as Error;
    throw err;
  } finally {
    client.off('error', ignore);
    client.release(broken);
  }
}
