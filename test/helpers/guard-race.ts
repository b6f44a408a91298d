import { afterEach, expect } from 'vitest';
import { SvcError } from '../../src/core/errors.js';
import type { PgTx } from '../../src/store/postgres/database.js';
import { lockTenant } from '../../src/store/postgres/locks.js';
import type { PgStore } from '../../src/store/postgres/store.js';
import type { Store } from '../../src/store/ports.js';
import { fixture, type Fixture } from './fixture.js';
import { freshDatabase } from './postgres.js';

/**
 * What the guarded-write race tests share: another writer changes a row between a use case's
 * read and its guarded write (on SQLite a statement on the one connection, inside the
 * transaction; on PostgreSQL another connection, committed while the tenant lock is held),
 * and the write changes no row.
 */

/** Asserts `err` is the coded conflict of a guarded write on `what` that changed no row. */
export function expectConflict(err: unknown, what: string): void {
  expect(err).toBeInstanceOf(SvcError);
  expect(err).toMatchObject({
    kind: 'conflict',
    message: `${what} changed 0 rows, not one: the state it was decided on no longer holds; retry`,
  });
}

/**
 * The SQLite and PostgreSQL stores a race test runs on, each closed (and its database
 * dropped) after the test that opened it. Call once in a `describe` body.
 */
export function raceStores(): {
  sqlite(): Promise<Fixture>;
  postgres(): Promise<Fixture<Store>>;
} {
  let open: Fixture<Store> | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await open?.close();
    await drop?.();
    open = drop = undefined;
  });
  return {
    sqlite: async () => {
      const f = await fixture();
      open = f;
      return f;
    },
    postgres: async () => {
      const fresh = await freshDatabase();
      drop = fresh.drop;
      open = await fixture({ postgres: fresh.url });
      return open;
    },
  };
}

/** The PostgreSQL database under a fixture's store. */
export const pgDb = (f: Fixture<Store>) => (f.store as PgStore).db;

/**
 * Runs `fn` in one PostgreSQL transaction that holds the lock of tenant acme, on the
 * operations `opsIn` builds on it: the transaction a replica's use case runs in.
 */
export function inTenant<O, T>(
  f: Fixture<Store>,
  opsIn: (tx: PgTx) => O,
  fn: (ops: O) => Promise<T>,
): Promise<T> {
  return pgDb(f).tx(async (tx) => {
    await lockTenant(tx, 'acme');
    return fn(opsIn(tx));
  });
}
