import type { Store } from '../ports.js';
import { openDatabase, type Db } from './database.js';
import { SqliteActors, SqliteTenants } from './identity.js';
import { SqliteSigningKeys } from './keys.js';
import { SqliteTokens } from './tokens.js';

export class SqliteStore implements Store {
  readonly tenants: SqliteTenants;
  readonly actors: SqliteActors;
  readonly tokens: SqliteTokens;
  readonly keys: SqliteSigningKeys;

  private constructor(readonly db: Db) {
    this.tenants = new SqliteTenants(db);
    this.actors = new SqliteActors(db);
    this.tokens = new SqliteTokens(db);
    this.keys = new SqliteSigningKeys(db);
  }

  static open(file: string): SqliteStore {
    return new SqliteStore(openDatabase(file));
  }

  async ping(): Promise<void> {
    // BEGIN IMMEDIATE takes the write lock: it proves the file is writable without writing.
    this.db.transaction(() => undefined).immediate();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
