import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../../src/store/sqlite/migrations.js';
import { openDatabase } from '../../../src/store/sqlite/database.js';
import { tmpDir } from '../../helpers/tmp.js';

describe('SQLite migrations', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it('apply in order at open, with WAL and synchronous=FULL, and re-open as a no-op', () => {
    const t = tmpDir();
    cleanup = t.cleanup;
    const file = join(t.path, 'svc.db');
    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    ).map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['tenants', 'actors', 'tokens', 'signing_keys']));
    db.prepare("INSERT INTO tenants (id, created_at) VALUES ('t', 'now')").run();
    db.close();
    const again = openDatabase(file);
    expect(again.prepare('SELECT count(*) AS n FROM tenants').get()).toEqual({ n: 1 });
    again.close();
  });

  it('refuses a database written by a newer svc', () => {
    const t = tmpDir();
    cleanup = t.cleanup;
    const file = join(t.path, 'svc.db');
    const raw = new Database(file);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() => openDatabase(file)).toThrow(/newer than this svc understands/);
  });

  it('two processes opening a fresh data dir at once both succeed and migrate once', async () => {
    const t = tmpDir();
    cleanup = t.cleanup;
    const file = join(t.path, 'svc.db');
    // Each child opens the same file through the real adapter, as the built CLI and daemon do.
    const adapter = new URL('../../../dist/src/store/sqlite/database.js', import.meta.url).href;
    const script = `
      const { openDatabase } = await import(${JSON.stringify(adapter)});
      const db = openDatabase(${JSON.stringify(file)});
      db.prepare("INSERT INTO tenants (id, created_at) VALUES (?, 'now')").run('p' + process.pid);
      db.close();
    `;
    const run = () =>
      new Promise<number | null>((resolve) => {
        const c = spawn(process.execPath, ['--input-type=module', '-e', script], {
          cwd: fileURLToPath(new URL('../../..', import.meta.url)),
          stdio: 'inherit',
        });
        c.on('close', resolve);
      });
    const codes = await Promise.all([run(), run(), run()]);
    expect(codes).toEqual([0, 0, 0]);
    const db = openDatabase(file);
    expect(db.prepare('SELECT count(*) AS n FROM tenants').get()).toEqual({ n: 3 });
    db.close();
  });
});
