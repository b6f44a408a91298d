import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../src/store/postgres/store.js';
import { runJson, runSvc } from '../helpers/cli.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { tmpDir } from '../helpers/tmp.js';

const server = await pgAvailable();

/** The built binary on a PostgreSQL store: `--store` and `SVC_STORE` on provisioning commands. */
describe.skipIf('skip' in server)('svc --store postgres://', () => {
  const tmp = tmpDir('svc-pg-cli-');
  const home = join(tmp.path, 'home');
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await db?.drop();
    tmp.cleanup();
  });

  it('initialises a data dir whose store is the database, and provisions through --store and SVC_STORE', async () => {
    const init = await runJson<{ tenant_id: string; admin_token_id: string }>(
      ['init', '--tenant', 'acme', '--admin', 'alice', '--store', db.url],
      { SVC_HOME: home },
    );
    expect(init.tenant_id).toBe('acme');
    // The data dir holds the keys and the certificate; the records live in PostgreSQL.
    expect(existsSync(join(home, 'tls', 'deployment-cert.pem'))).toBe(true);
    expect(existsSync(join(home, 'svc.db'))).toBe(false);

    await runJson(['tenant', 'create', '--id', 'beta', '--store', db.url], { SVC_HOME: home });
    const issued = await runJson<{ token_id: string }>(
      ['token', 'issue', '--tenant', 'acme', '--actor', 'alice'],
      {
        SVC_HOME: home,
        SVC_STORE: db.url,
      },
    );
    const listed = await runJson<{ items: { token_id: string }[] }>(['token', 'list', '--tenant', 'acme'], {
      SVC_HOME: home,
      SVC_STORE: db.url,
    });
    expect(listed.items.map((t) => t.token_id).sort()).toEqual([init.admin_token_id, issued.token_id].sort());

    // Read back with the adapter itself: the rows are in the database the URL names.
    const store = await PgStore.open(db.url);
    try {
      expect((await store.tenants.list()).map((t) => t.id)).toEqual(['acme', 'beta']);
      expect((await store.tokens.find(issued.token_id))?.actorId).toBe('alice');
    } finally {
      await store.close();
    }
  });

  it('without --store, the same data dir says it has no SQLite database and how to name the store', async () => {
    const r = await runSvc(['tenant', 'list', '--json'], { SVC_HOME: home, SVC_STORE: '' });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: 'not_initialized',
      remedy: expect.stringMatching(/--store or set SVC_STORE/),
    });
  });

  it('refuses to initialise a second deployment on a database that already holds tenants', async () => {
    const other = join(tmp.path, 'other');
    const r = await runSvc(['init', '--tenant', 'x', '--admin', 'y', '--store', db.url], { SVC_HOME: other });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/already holds tenants/);
    expect(existsSync(other)).toBe(false);
  });

  it('refuses a store that is neither a PostgreSQL URL nor sqlite, naming the flag', async () => {
    const r = await runSvc(['tenant', 'list', '--store', 'mysql://db/svc'], { SVC_HOME: home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--store: expected a postgres:\/\/ or postgresql:\/\/ URL, or sqlite/);
  });

  it('never prints the password of a URL it cannot reach', async () => {
    const r = await runSvc(['tenant', 'list', '--store', 'postgresql://svc:Sup3r-s3cret@127.0.0.1:1/svc'], {
      SVC_HOME: home,
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/postgresql:\/\/svc:\*\*\*@127\.0\.0\.1:1\/svc/);
    expect(`${r.stdout}${r.stderr}`).not.toContain('Sup3r-s3cret');
  });
});
