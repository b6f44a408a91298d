import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PgStore } from '../../../src/store/postgres/store.js';
import { freshDatabase, pgAvailable } from '../../helpers/postgres.js';
import { newTenant, T1 } from '../../contract/cases/fixtures.js';

const server = await pgAvailable();

describe.skipIf('skip' in server)('PgStore', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  const open: PgStore[] = [];
  const store = async () => {
    const s = await PgStore.open(fresh.url, { poolSize: 3, applicationName: `svc-test-${open.length}` });
    open.push(s);
    return s;
  };
  beforeAll(async () => {
    fresh = await freshDatabase();
  });
  afterAll(async () => {
    for (const s of open) await s.close();
    await fresh?.drop();
  });

  it('tells every replica of a revocation at once (LISTEN/NOTIFY), and says when it may have missed one', async () => {
    const a = await store();
    const b = await store();
    await a.tenants.create(newTenant('acme'));
    const heard: (string | undefined)[] = [];
    let wake: () => void = () => undefined;
    b.revocations.subscribe((id) => {
      heard.push(id);
      wake();
    });
    await b.revocations.ready();
    const next = () => new Promise<void>((resolve) => (wake = resolve));

    heard.length = 0;
    let arrived = next();
    expect(await a.tokens.revoke('acme', 'acme-tok', T1)).toBe(true);
    await arrived;
    expect(heard).toEqual(['acme-tok']);

    // Lose b's listening connection: b's listeners are told to forget everything, twice
    // (on the loss and once it listens again), and later revocations arrive as before.
    heard.length = 0;
    arrived = next();
    await terminate(fresh.url, 'svc-test-1 (revocations)');
    await arrived;
    await b.revocations.ready();
    await waitFor(() => heard.length >= 2);
    expect(heard).toEqual([undefined, undefined]);
    heard.length = 0;
    await a.tokens.insert({ ...newTenant('acme').adminToken!, id: 'tok-2' });
    arrived = next();
    await a.tokens.revoke('acme', 'tok-2', T1);
    await arrived;
    expect(heard).toEqual(['tok-2']);
  });

  it('moves the token change mark on a revocation by any replica, and on every call while not listening', async () => {
    const a = await store();
    const b = await store();
    await a.tenants.create(newTenant('mark'));
    // Not listening yet: every read moves, so a cache keeps nothing it could not hear revoked.
    const first = await b.tokens.changeMark();
    expect(await b.tokens.changeMark()).not.toBe(first);
    await b.revocations.ready();
    const steady = await b.tokens.changeMark();
    expect(await b.tokens.changeMark()).toBe(steady);
    // This process's own revocation moves its mark before revoke() returns.
    const mine = await a.tokens.changeMark();
    await a.tokens.revoke('mark', 'mark-tok', T1);
    expect(await a.tokens.changeMark()).not.toBe(mine);
    // Another replica's moves it for the very next read after the revoking commit: the
    // read's round trip on the listening connection has the notification delivered first.
    await a.tokens.insert({ ...newTenant('mark').adminToken!, id: 'mark-tok-2' });
    const before = await b.tokens.changeMark();
    expect(await a.tokens.revoke('mark', 'mark-tok-2', T1)).toBe(true);
    expect(await b.tokens.changeMark()).not.toBe(before);
    expect(await b.tokens.changeMark()).not.toBe(steady);
    // And while b cannot listen, its mark moves on every call.
    await terminate(fresh.url, 'svc-test-3 (revocations)');
    await waitFor(() => !b.revocations.listening);
    const down = await b.tokens.changeMark();
    expect(await b.tokens.changeMark()).not.toBe(down);
  });

  it('does not pass its ping on a connection that accepts no writes (a standby)', async () => {
    const s = await PgStore.open(fresh.url, { poolSize: 1 });
    open.push(s);
    await expect(s.ping()).resolves.toBeUndefined();
    // One pooled connection: the session setting below is what the ping then sees.
    await s.db.query('SET default_transaction_read_only = on');
    await expect(s.ping()).rejects.toMatchObject({
      code: 'unavailable',
      reason: expect.stringMatching(/accepts no writes/),
    });
  });

  it('refuses to open a database that accepts no writes', async () => {
    const ro = await freshDatabase();
    try {
      const name = new URL(ro.url).pathname.slice(1);
      await admin(fresh.url, `ALTER DATABASE "${name}" SET default_transaction_read_only = on`);
      // Migrating needs writes too: opening fails, saying so, before any request is served.
      await expect(PgStore.open(ro.url)).rejects.toMatchObject({ code: 'unavailable' });
    } finally {
      await ro.drop();
    }
  });

  it('refuses an unreachable database without printing its password', async () => {
    const err = await PgStore.open('postgres://svc:top-secret-9@127.0.0.1:1/svc', {
      connectTimeoutMs: 2000,
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'unavailable' });
    expect(String((err as Error).message)).not.toContain('top-secret-9');
  });
  it('reports its pool for the metrics: connections open, idle, and queries waiting for one', async () => {
    const s = await store();
    expect(s.poolStats().waiting).toBe(0);
    // Hold all three connections, then ask for a fourth: it waits.
    const held = await Promise.all([1, 2, 3].map(() => s.db.pool.connect()));
    const fourth = s.db.pool.connect();
    try {
      expect(s.poolStats()).toEqual({ total: 3, idle: 0, waiting: 1 });
    } finally {
      for (const c of held) c.release();
      (await fourth).release();
    }
    expect(s.poolStats()).toEqual({ total: 3, idle: 3, waiting: 0 });
  });
});

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function terminate(url: string, applicationName: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query(
      'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1',
      [applicationName],
    );
    if (r.rowCount !== 1)
      throw new Error(`expected one connection named ${applicationName}, found ${r.rowCount}`);
  } finally {
    await client.end();
  }
}

async function waitFor(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in 10 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}
