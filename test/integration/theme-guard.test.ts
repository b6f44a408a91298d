import { describe, expect, it } from 'vitest';
import { saveTheme, type ThemeSave } from '../../src/core/theme/revision.js';
import { defaultTheme } from '../../src/core/theme/theme.js';
import { runAsync, runSync } from '../../src/core/use-case.js';
import { themeOpsIn } from '../../src/store/postgres/themes.js';
import type { Store } from '../../src/store/ports.js';
import { themeOps } from '../../src/store/sqlite/themes.js';
import type { Fixture } from '../helpers/fixture.js';
import { expectConflict, inTenant, pgDb, raceStores } from '../helpers/guard-race.js';
import { thrown } from '../helpers/op-race.js';
import { pgAvailable } from '../helpers/postgres.js';

/**
 * A theme revision is inserted only where its number is free, and must insert one row.
 * Another writer taking the number between the read and the insert (which the single writer
 * and the tenant lock rule out today) fails the save with the coded conflict, and the other
 * writer's revision stands.
 */
const server = await pgAvailable();
const THEME = JSON.stringify(defaultTheme('light'));

const conflict = (err: unknown, revision: number) =>
  expectConflict(err, `revision ${revision} of tenant acme's theme`);

describe('a theme revision another writer saved between the read and the insert', () => {
  const stores = raceStores();
  const input = (f: Fixture<Store>, expected: number): ThemeSave => ({
    tenantId: 'acme',
    theme: defaultTheme('dark'),
    source: 'editor',
    createdBy: 'alice',
    at: f.now.value.toISOString(),
    expected,
  });

  it('sqlite: fails with a coded conflict and rolls back', async () => {
    const sqlite = await stores.sqlite();
    const db = sqlite.store.db;
    const before = (await sqlite.store.themes.current('acme'))?.revision ?? 0;
    const ops = themeOps(db);
    // The single writer admits no second connection mid-transaction: the racer writes on this one.
    const raced: typeof ops = {
      ...ops,
      insertRevision: (r) => {
        db.prepare(
          "INSERT INTO themes (tenant_id, revision, document, source, created_by, created_at) VALUES ('acme', ?, ?, 'editor', 'bob', 'x')",
        ).run(r.revision, THEME);
        return ops.insertRevision(r);
      },
    };
    const err = await thrown(() =>
      db.transaction(() => runSync(saveTheme(input(sqlite, before)), raced)).immediate(),
    );
    conflict(err, before + 1);
    expect((await sqlite.store.themes.current('acme'))?.revision ?? 0).toBe(before);
  });

  it.skipIf('skip' in server)(
    'postgres: fails with a coded conflict; the other writer’s revision stands',
    async () => {
      const pg = await stores.postgres();
      const db = pgDb(pg);
      const before = (await pg.store.themes.current('acme'))?.revision ?? 0;
      const err = await thrown(() =>
        inTenant(pg, themeOpsIn, (ops) =>
          // Another connection (a replica that skipped the lock) commits the same revision first.
          runAsync(saveTheme(input(pg, before)), {
            ...ops,
            insertRevision: async (r) => {
              await db.query(
                "INSERT INTO themes (tenant_id, revision, document, source, created_by, created_at) VALUES ('acme', $1, $2, 'editor', 'bob', 'x')",
                [r.revision, THEME],
              );
              return ops.insertRevision(r);
            },
          }),
        ),
      );
      conflict(err, before + 1);
      expect(await pg.store.themes.current('acme')).toMatchObject({ revision: before + 1, createdBy: 'bob' });
    },
  );
});
