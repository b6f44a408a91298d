import { join } from 'node:path';
import pg from 'pg';
import { PgStore } from '../../src/store/postgres/store.js';
import { openRecordedDecisions } from '../../src/store/open.js';
import type { Store } from '../../src/store/ports.js';
import type { RecordedDecisions } from '../../src/store/replay-ports.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * One adapter as the contract suite sees it. `open()` gives a new, empty, migrated store
 * of its own; `reopen(store)` a second store on the same database (another process, or
 * another replica). Everything opened is closed and removed by `cleanup()`.
 */
export interface StoreHarness {
  readonly name: 'sqlite' | 'postgres';
  open(opts?: { clock?: () => Date }): Promise<Store>;
  reopen(store: Store, opts?: { clock?: () => Date }): Promise<Store>;
  /** the store's recorded decisions, opened read-only as `svc policy replay` opens them */
  recorded(store: Store): Promise<RecordedDecisions>;
  cleanup(): Promise<void>;
}

export interface ContractAdapter {
  name: StoreHarness['name'];
  /** Why this adapter cannot run here (printed), or undefined. */
  skip: string | undefined;
  harness(): StoreHarness;
}

export async function contractAdapters(): Promise<ContractAdapter[]> {
  const pg = await pgAvailable();
  return [
    { name: 'sqlite', skip: undefined, harness: sqliteHarness },
    { name: 'postgres', skip: 'skip' in pg ? pg.skip : undefined, harness: postgresHarness },
  ];
}

function sqliteHarness(): StoreHarness {
  const where = new Map<Store, string>();
  const stores: Store[] = [];
  const readers: RecordedDecisions[] = [];
  const dirs: { cleanup(): void }[] = [];
  const track = (store: Store, file: string) => {
    where.set(store, file);
    stores.push(store);
    return store;
  };
  return {
    name: 'sqlite',
    async open(opts = {}) {
      const dir = tmpDir('svc-contract-');
      dirs.push(dir);
      const file = join(dir.path, 'svc.db');
      return track(SqliteStore.open(file, opts), file);
    },
    async reopen(store, opts = {}) {
      const file = where.get(store) as string;
      return track(SqliteStore.open(file, opts), file);
    },
    async recorded(store) {
      const r = await openRecordedDecisions(where.get(store) as string);
      readers.push(r);
      return r;
    },
    async cleanup() {
      for (const r of readers) await r.close();
      for (const s of stores) await s.close();
      for (const d of dirs) d.cleanup();
    },
  };
}

/**
 * Each `open()` is a fresh schema of one database per harness (the connection's
 * search_path names it): creating a database per case costs half a second with fsync on.
 */
function postgresHarness(): StoreHarness {
  const where = new Map<Store, string>();
  const stores: Store[] = [];
  const readers: RecordedDecisions[] = [];
  let database: Promise<{ url: string; drop(): Promise<void> }> | undefined;
  let schemas = 0;
  const track = (store: Store, url: string) => {
    where.set(store, url);
    stores.push(store);
    return store;
  };
  return {
    name: 'postgres',
    async open(opts = {}) {
      const db = await (database ??= freshDatabase());
      const schema = `contract_${++schemas}`;
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      try {
        await admin.query(`CREATE SCHEMA ${schema}`);
      } finally {
        await admin.end();
      }
      const url = new URL(db.url);
      url.searchParams.set('options', `-c search_path=${schema}`);
      return track(await PgStore.open(url.toString(), { ...opts, poolSize: 4 }), url.toString());
    },
    async reopen(store, opts = {}) {
      const url = where.get(store) as string;
      return track(await PgStore.open(url, { ...opts, poolSize: 4 }), url);
    },
    async recorded(store) {
      const r = await openRecordedDecisions(where.get(store) as string);
      readers.push(r);
      return r;
    },
    async cleanup() {
      for (const r of readers) await r.close();
      for (const s of stores) await s.close();
      if (database) await (await database).drop();
    },
  };
}
