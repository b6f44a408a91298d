import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/store/sqlite/database.js';
import { PgDb } from '../../../src/store/postgres/database.js';
import { migrate } from '../../../src/store/postgres/migrate.js';
import { PG_MIGRATIONS, PG_ONLY_TABLES } from '../../../src/store/postgres/schema.js';
import { freshDatabase, pgAvailable } from '../../helpers/postgres.js';
import { tmpDir } from '../../helpers/tmp.js';

const server = await pgAvailable();
/** Triggers only the PostgreSQL schema has, for what SQLite's adapter does in code instead. */
const PG_ONLY_TRIGGERS = new Set(['journal_activity_count']);

describe.skipIf('skip' in server)('PostgreSQL migrations', () => {
  it('several processes starting together apply each migration exactly once', async () => {
    const fresh = await freshDatabase();
    // Separate pools, like separate replicas: each migrator holds its own connection.
    const dbs = Array.from({ length: 6 }, () => new PgDb(fresh.url, { poolSize: 2 }));
    try {
      const versions = await Promise.all(dbs.map((db) => migrate(db)));
      expect(versions).toEqual(dbs.map(() => PG_MIGRATIONS.length));
      const rows = await dbs[0]!.query<{ version: string }>(
        'SELECT version FROM schema_migrations ORDER BY version',
      );
      expect(rows.map((r) => Number(r.version))).toEqual(PG_MIGRATIONS.map((_, i) => i + 1));
      // A later start finds nothing to do and changes nothing.
      expect(await migrate(dbs[1]!)).toBe(PG_MIGRATIONS.length);
      expect(await dbs[0]!.query('SELECT version FROM schema_migrations')).toHaveLength(PG_MIGRATIONS.length);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await fresh.drop();
    }
  });

  it('carries over the Merkle subtrees of a database that keyed them by level and index', async () => {
    const fresh = await freshDatabase();
    const db = new PgDb(fresh.url);
    try {
      const rekeying = PG_MIGRATIONS.findIndex((m) => m.includes('merkle_nodes_by_size'));
      expect(rekeying).toBeGreaterThan(0);
      await migrate(db, PG_MIGRATIONS.slice(0, rekeying));
      const hash = (b: number) => Buffer.alloc(32, b);
      // (level, idx): (1, 0) completes at size 2, (2, 0) at 4, (1, 1) at 4, (3, 5) at 48
      for (const [level, idx, b] of [
        [1, 0, 1],
        [2, 0, 2],
        [1, 1, 3],
        [3, 5, 4],
      ] as const)
        await db.query("INSERT INTO merkle_nodes (tenant_id, level, idx, hash) VALUES ('acme', $1, $2, $3)", [
          level,
          idx,
          hash(b),
        ]);
      await migrate(db);
      const rows = await db.query<{ at_size: string; level: string; hash: Buffer }>(
        'SELECT at_size, level, hash FROM merkle_nodes ORDER BY at_size, level',
      );
      expect(rows.map((r) => [Number(r.at_size), Number(r.level), r.hash[0]])).toEqual([
        [2, 1, 1],
        [4, 1, 3],
        [4, 2, 2],
        [48, 3, 4],
      ]);
      // a size that is not where the level completes is refused
      await expect(
        db.query("INSERT INTO merkle_nodes (tenant_id, at_size, level, hash) VALUES ('acme', 6, 2, $1)", [
          hash(9),
        ]),
      ).rejects.toThrow(/check constraint/);
    } finally {
      await db.close();
      await fresh.drop();
    }
  });

  describe('one migrated database', () => {
    let fresh: Awaited<ReturnType<typeof freshDatabase>>;
    let db: PgDb;
    beforeAll(async () => {
      fresh = await freshDatabase();
      db = new PgDb(fresh.url);
      await migrate(db);
    });
    afterAll(async () => {
      await db?.close();
      await fresh?.drop();
    });

    it('has the same tables, columns (in order) and indexes as the SQLite schema', async () => {
      const dir = tmpDir();
      const lite = openDatabase(`${dir.path}/svc.db`);
      try {
        const liteTables = (
          lite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
            name: string;
          }[]
        ).map((t) => t.name);
        const pgTables = (
          await db.query<{ table_name: string }>(
            'SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name <> \'schema_migrations\' ORDER BY table_name COLLATE "C"',
          )
        )
          .map((t) => t.table_name)
          // what only replicas on PostgreSQL have (the replicas they have seen, sealed keys)
          .filter((name) => !PG_ONLY_TABLES.has(name));
        expect(pgTables).toEqual(liteTables);
        for (const table of liteTables) {
          const liteCols = (
            lite.prepare(`PRAGMA table_info(${table})`).all() as { name: string; notnull: number }[]
          ).map((c) => `${c.name}${c.notnull ? ' not null' : ''}`);
          const pgCols = (
            await db.query<{ column_name: string; is_nullable: string }>(
              'SELECT column_name, is_nullable FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position',
              [table],
            )
          ).map((c) => `${c.column_name}${c.is_nullable === 'NO' ? ' not null' : ''}`);
          // SQLite reports a TEXT PRIMARY KEY as nullable; PostgreSQL makes every key column NOT NULL.
          expect(pgCols.map((c) => c.replace(' not null', ''))).toEqual(
            liteCols.map((c) => c.replace(' not null', '')),
          );
          for (const col of liteCols.filter((c) => c.endsWith(' not null'))) expect(pgCols).toContain(col);
        }
        const liteIndexes = (
          lite
            .prepare(
              "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name",
            )
            .all() as { name: string }[]
        ).map((i) => i.name);
        const pgIndexes = (
          await db.query<{ indexname: string }>(
            // keys and UNIQUE constraints are SQLite's automatic indexes: compared through the columns above
            'SELECT indexname FROM pg_indexes i WHERE schemaname = current_schema() AND tablename <> ALL($1) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname) ORDER BY indexname COLLATE "C"',
            [[...PG_ONLY_TABLES]],
          )
        ).map((i) => i.indexname);
        expect(pgIndexes).toEqual(liteIndexes);
        const liteTriggers = (
          lite.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all() as {
            name: string;
          }[]
        ).map((t) => t.name);
        const pgTriggers = (
          await db.query<{ tgname: string }>(
            'SELECT tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname COLLATE "C"',
          )
        ).map((t) => t.tgname);
        // The journal's activity counts: PostgreSQL's trigger counts a batch's rows once per
        // statement, set-based; SQLite's journal writer counts each append itself (the row
        // trigger it replaced parsed every record on the decision path).
        expect(pgTriggers.filter((t) => !PG_ONLY_TRIGGERS.has(t))).toEqual(liteTriggers);
        expect(pgTriggers).toEqual(expect.arrayContaining([...PG_ONLY_TRIGGERS]));
      } finally {
        lite.close();
        dir.cleanup();
      }
    });

    it('keeps a signed tree head immutable, as the SQLite triggers do', async () => {
      await db.query("INSERT INTO tenants (id, created_at) VALUES ('t', '2026-01-01T00:00:00.000Z')");
      await db.query(
        "INSERT INTO signing_keys (tenant_id, key_id, public_key, algorithm, status, created_at) VALUES ('t', 'k', 'pk', 'ed25519', 'active', 'now')",
      );
      await db.query(
        `INSERT INTO anchors (tenant_id, tree_size, root_hash, signed_at, signature, key_id, algorithm)
         VALUES ('t', 1, '${'a'.repeat(64)}', 'now', 'sig', 'k', 'ed25519')`,
      );
      await expect(db.query("UPDATE anchors SET signature = 'forged'")).rejects.toThrow(
        'a signed tree head is never changed',
      );
      await expect(db.query('DELETE FROM anchors')).rejects.toThrow('a signed tree head is never deleted');
      await db.query(
        "INSERT INTO anchor_witnesses (tenant_id, tree_size, witness_id, public_key, signature, signed_at) VALUES ('t', 1, 'w', 'pk', 's', 'now')",
      );
      await expect(db.query("UPDATE anchor_witnesses SET signature = 'x'")).rejects.toThrow(
        'a witness cosignature is never changed',
      );
      expect(await db.query('SELECT signature FROM anchors')).toEqual([{ signature: 'sig' }]);
    });

    it('orders text byte by byte, as SQLite does, whatever the database collation', async () => {
      await db.query(
        "INSERT INTO tenants (id, created_at) VALUES ('b', 'x'), ('B', 'x'), ('a', 'x'), ('_z', 'x')",
      );
      const ids = (await db.query<{ id: string }>("SELECT id FROM tenants WHERE id <> 't' ORDER BY id")).map(
        (r) => r.id,
      );
      expect(ids).toEqual(['B', '_z', 'a', 'b']);
    });

    it('refuses a database newer than this svc, and a failed migration leaves nothing half-applied', async () => {
      const failing = [...PG_MIGRATIONS, 'CREATE TABLE half_done (a BIGINT); SELECT 1 / 0'];
      await expect(migrate(db, failing)).rejects.toThrow(/division by zero/);
      expect(await db.query("SELECT to_regclass('half_done') AS t")).toEqual([{ t: null }]);
      expect(await db.query('SELECT max(version) AS v FROM schema_migrations')).toEqual([
        { v: String(PG_MIGRATIONS.length) },
      ]);
      await db.query('INSERT INTO schema_migrations (version, applied_at) VALUES (99, $1)', ['now']);
      await expect(migrate(db)).rejects.toMatchObject({
        code: 'unavailable',
        reason: expect.stringMatching(/version 99/),
      });
      await db.query('DELETE FROM schema_migrations WHERE version = 99');
    });
  });
});
