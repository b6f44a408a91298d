import { mkdirSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDir } from '../../../src/store/data-dir.js';
import { resolveStoreSpec } from '../../../src/store/open.js';
import { tmpDir } from '../../helpers/tmp.js';

describe('choosing the store (--store, SVC_STORE)', () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  it('is the data dir’s SQLite file by default, or when asked for by name', () => {
    expect(resolveStoreSpec(undefined, '/d/svc.db')).toBe('/d/svc.db');
    expect(resolveStoreSpec('', '/d/svc.db')).toBe('/d/svc.db');
    expect(resolveStoreSpec('sqlite', '/d/svc.db')).toBe('/d/svc.db');
  });

  it('is a PostgreSQL URL as given', () => {
    expect(resolveStoreSpec('postgresql://svc@db:5432/svc?sslmode=require', '/d/svc.db')).toBe(
      'postgresql://svc@db:5432/svc?sslmode=require',
    );
    expect(resolveStoreSpec('postgres://db/svc', '/d/svc.db')).toBe('postgres://db/svc');
  });

  it('refuses anything else as a usage error naming the flag, and never echoes a password', () => {
    expect(() => resolveStoreSpec('mysql://u:hunter2@db/svc', '/d/svc.db')).toThrow(
      expect.objectContaining({ code: 'usage', field: 'store' }),
    );
    expect(() => resolveStoreSpec('./other.db', '/d/svc.db')).toThrow(/--store: expected a postgres/);
    try {
      resolveStoreSpec('mysql://u:hunter2@db/svc', '/d/svc.db');
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter2');
    }
  });

  it('on PostgreSQL, a data dir is initialised when it holds the deployment certificate (it has no svc.db)', () => {
    const t = tmpDir();
    cleanup = t.cleanup;
    const dir = new DataDir(t.path, 'postgresql://svc@db/svc');
    expect(dir.onPostgres).toBe(true);
    expect(dir.postgresUrl).toBe('postgresql://svc@db/svc');
    expect(dir.exists()).toBe(false);
    mkdirSync(dir.tlsDir, { recursive: true });
    writeFileSync(dir.tlsCert, 'cert');
    expect(dir.exists()).toBe(true);
    const lite = new DataDir(t.path);
    expect(lite.onPostgres).toBe(false);
    expect(lite.postgresUrl).toBeUndefined();
    expect(lite.exists()).toBe(false);
  });
});
