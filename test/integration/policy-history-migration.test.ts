import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { PgDb } from '../../src/store/postgres/database.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/schema.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * A data dir that already holds policies when the history arrives: each tenant's current
 * version gets a history row (set by 'migration', at its updated_at, with its hash), and from
 * then on no history row can be changed or deleted, whatever writes to the database.
 */
const server = await pgAvailable();
const TEXT = 'permit (principal, action, resource);\n// naïve\n';
const HASH = createHash('sha256').update(Buffer.from(TEXT, 'utf8')).digest('hex');
const AT = '2026-01-01T00:00:00.000Z';
const MESSAGE = 'recorded when the policy history began; earlier versions were not kept';
/** Where the history's migration sits: found by what it creates, as the lead renumbers at merges. */
const before = (list: readonly string[]) => list.findIndex((m) => m.includes('CREATE TABLE policy_versions'));
const expected = [
  {
    tenant_id: 'acme',
    version: 7,
    text: TEXT,
    sha256: HASH,
    set_by: 'migration',
    message: MESSAGE,
    set_at: AT,
  },
];

describe('the policy history migration', () => {
  const dir = tmpDir('svc-policy-history-');
  afterAll(() => dir.cleanup());

  it('sqlite: records the current policy of each tenant, then refuses to change or delete a version', () => {
    const file = join(dir.path, 'svc.db');
    const raw = new Database(file);
    const upTo = before(MIGRATIONS);
    expect(upTo).toBeGreaterThan(0);
    for (const m of MIGRATIONS.slice(0, upTo)) raw.exec(m);
    raw.pragma(`user_version = ${upTo}`);
    raw.prepare("INSERT INTO tenants (id, created_at) VALUES ('acme', ?), ('empty', ?)").run(AT, AT);
    raw
      .prepare("INSERT INTO policies (tenant_id, version, text, updated_at) VALUES ('acme', 7, ?, ?)")
      .run(TEXT, AT);
    raw.close();

    const db = openDatabase(file);
    try {
      expect(db.prepare('SELECT * FROM policy_versions').all()).toEqual(expected);
      expect(() => db.prepare("UPDATE policy_versions SET text = 'forbid'").run()).toThrow(
        /a policy version is never changed/,
      );
      expect(() => db.prepare('DELETE FROM policy_versions').run()).toThrow(
        /a policy version is never deleted/,
      );
    } finally {
      db.close();
    }
  });

  it.skipIf('skip' in server)('postgres: the same', async () => {
    const fresh = await freshDatabase();
    const db = new PgDb(fresh.url);
    try {
      const upTo = before(PG_MIGRATIONS);
      expect(upTo).toBeGreaterThan(0);
      await migrate(db, PG_MIGRATIONS.slice(0, upTo));
      await db.query("INSERT INTO tenants (id, created_at) VALUES ('acme', $1), ('empty', $1)", [AT]);
      await db.query(
        "INSERT INTO policies (tenant_id, version, text, updated_at) VALUES ('acme', 7, $1, $2)",
        [TEXT, AT],
      );
      await migrate(db);
      const rows = await db.query('SELECT * FROM policy_versions');
      expect(rows).toEqual(expected.map((r) => ({ ...r, version: String(r.version) })));
      await expect(db.query("UPDATE policy_versions SET text = 'forbid'")).rejects.toThrow(
        /a policy version is never changed/,
      );
      await expect(db.query('DELETE FROM policy_versions')).rejects.toThrow(
        /a policy version is never deleted/,
      );
    } finally {
      await db.close();
      await fresh.drop();
    }
  });
});
