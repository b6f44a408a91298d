import { afterEach, describe, expect, it } from 'vitest';
import { SvcError } from '../../src/core/errors.js';
import { saveTheme, type ThemeOps, type ThemeSave } from '../../src/core/theme/revision.js';
import { defaultTheme } from '../../src/core/theme/theme.js';
import { runAsync, runSync } from '../../src/core/use-case.js';
import { lockTenant } from '../../src/store/postgres/locks.js';
import type { PgStore } from '../../src/store/postgres/store.js';
import { themeOpsIn } from '../../src/store/postgres/themes.js';
import type { Store } from '../../src/store/ports.js';
import { themeOps } from '../../src/store/sqlite/themes.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';

/**
 * A theme revision is inserted only where its number is free, and must insert one row.
 * Another writer taking the number between the read and the insert (which the single writer
 * and the tenant lock rule out today) fails the save with the coded conflict, and the other
 * writer's revision stands.
 */
const server = await pgAvailable();
const THEME = JSON.stringify(defaultTheme('light'));

const conflict = (err: unknown, revision: number) => {
  expect(err).toBeInstanceOf(SvcError);
  expect(err).toMatchObject({
    kind: 'conflict',
    message: `revision ${revision} of tenant acme's theme changed 0 rows, not one: the state it was decided on no longer holds; retry`,
  });
};

async function failure(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the save to fail');
}

describe('a theme revision another writer saved between the read and the insert', () => {
  let f: Fixture<Store> | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await f?.close();
    await drop?.();
    f = drop = undefined;
  });
  const input = (f: Fixture<Store>, expected: number): ThemeSave => ({
    tenantId: 'acme',
    theme: defaultTheme('dark'),
    source: 'editor',
    createdBy: 'alice',
    at: f.now.value.toISOString(),
    expected,
  });

  it('sqlite: fails with a coded conflict and rolls back', async () => {
    const sqlite = await fixture();
    f = sqlite;
    const db = sqlite.store.db;
    const before = (await sqlite.store.themes.current('acme'))?.revision ?? 0;
    const ops = themeOps(db);
    // The single writer admits no second connection mid-transaction: the racer writes on this one.
    const raced: ThemeOps = {
      ...ops,
      insertRevision: (r) => {
        db.prepare(
          "INSERT INTO themes (tenant_id, revision, document, source, created_by, created_at) VALUES ('acme', ?, ?, 'editor', 'bob', 'x')",
        ).run(r.revision, THEME);
        return ops.insertRevision(r);
      },
    };
    const err = await failure(() =>
      db.transaction(() => runSync(saveTheme(input(sqlite, before)), raced)).immediate(),
    );
    conflict(err, before + 1);
    expect((await sqlite.store.themes.current('acme'))?.revision ?? 0).toBe(before);
  });

  it.skipIf('skip' in server)(
    'postgres: fails with a coded conflict; the other writer’s revision stands',
    async () => {
      const fresh = await freshDatabase();
      drop = fresh.drop;
      const pg = await fixture({ postgres: fresh.url });
      f = pg;
      const db = (pg.store as PgStore).db;
      const before = (await pg.store.themes.current('acme'))?.revision ?? 0;
      const err = await failure(() =>
        db.tx(async (tx) => {
          await lockTenant(tx, 'acme');
          const ops = themeOpsIn(tx);
          // Another connection (a replica that skipped the lock) commits the same revision first.
          return runAsync(saveTheme(input(pg, before)), {
            ...ops,
            insertRevision: async (r) => {
              await db.query(
                "INSERT INTO themes (tenant_id, revision, document, source, created_by, created_at) VALUES ('acme', $1, $2, 'editor', 'bob', 'x')",
                [r.revision, THEME],
              );
              return ops.insertRevision(r);
            },
          });
        }),
      );
      conflict(err, before + 1);
      expect(await pg.store.themes.current('acme')).toMatchObject({ revision: before + 1, createdBy: 'bob' });
    },
  );
});
