import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import { PgDb, pgStoreError } from '../../../src/store/postgres/database.js';
import { lockTenant, lockTenants } from '../../../src/store/postgres/locks.js';
import { migrate } from '../../../src/store/postgres/migrate.js';
import { freshDatabase, pgAvailable } from '../../helpers/postgres.js';

const server = await pgAvailable();

describe.skipIf('skip' in server)('PgDb', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let db: PgDb;
  beforeAll(async () => {
    fresh = await freshDatabase();
    db = await PgDb.connect(fresh.url, { poolSize: 4 });
    await migrate(db);
    await db.query("INSERT INTO tenants (id, created_at) VALUES ('t1', 'now'), ('t2', 'now')");
  });
  afterAll(async () => {
    await db?.close();
    await fresh?.drop();
  });

  it('maps a unique violation to already_exists and a missing reference to not_found', async () => {
    const dup = await db
      .query("INSERT INTO tenants (id, created_at) VALUES ('t1', 'now')")
      .catch((e: unknown) => e);
    expect(pgStoreError(dup, 'tenant t1')).toMatchObject({
      code: 'already_exists',
      reason: 'tenant t1 already exists',
    });
    const orphan = await db
      .query("INSERT INTO actors (tenant_id, id, kind, created_at) VALUES ('nope', 'a', 'agent', 'now')")
      .catch((e: unknown) => e);
    expect(pgStoreError(orphan, 'actor a')).toMatchObject({ code: 'not_found' });
    // Anything else stays what it was (and surfaces as internal).
    const other = await db.query('SELECT * FROM no_such_table').catch((e: unknown) => e);
    expect(pgStoreError(other, 'x')).toBe(other);
  });

  it('returns BIGINT as a string, so micros beyond 2^53 survive', async () => {
    expect(await db.query('SELECT 9007199254740993::bigint AS n')).toEqual([{ n: '9007199254740993' }]);
  });

  it('commits a transaction, and rolls it back entirely when the function throws', async () => {
    await db.tx(async (tx) => {
      await tx.query("INSERT INTO tenants (id, created_at) VALUES ('kept', 'now')");
    });
    const failed = await db
      .tx(async (tx) => {
        await tx.query("INSERT INTO tenants (id, created_at) VALUES ('lost', 'now')");
        throw new Error('boom');
      })
      .catch((e: unknown) => e);
    expect((failed as Error).message).toBe('boom');
    const ids = (await db.query<{ id: string }>("SELECT id FROM tenants WHERE id IN ('kept', 'lost')")).map(
      (r) => r.id,
    );
    expect(ids).toEqual(['kept']);
  });

  it('maps a connection the server drops mid-transaction to unavailable, and the pool recovers', async () => {
    const err = await db
      .tx(async (tx) => {
        const [me] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await db.query('SELECT pg_terminate_backend($1)', [me!.pid]);
        await tx.query('SELECT 1');
      })
      .catch((e: unknown) => e);
    expect(pgStoreError(err, 'x')).toMatchObject({ code: 'unavailable' });
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('answers every query and transaction that cannot reach the server as unavailable, nothing committed', async () => {
    const down = new PgDb('postgresql://postgres@127.0.0.1:1/svc', { connectTimeoutMs: 2000 });
    const one = new PgDb(fresh.url, { poolSize: 1, connectTimeoutMs: 100 });
    try {
      const unreachable = {
        code: 'unavailable',
        reason: 'the store is unreachable; nothing was committed or executed',
      };
      // connection refused, on a query and on a transaction
      expect(await down.query('SELECT 1').catch((e: unknown) => e)).toMatchObject(unreachable);
      expect(await down.tx(async () => undefined).catch((e: unknown) => e)).toMatchObject(unreachable);
      // the pool's only connection held: the checkout times out
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const held = one.tx(() => gate);
      const waited = await one.query('SELECT 1').catch((e: unknown) => e);
      release();
      await held;
      expect(waited).toBeInstanceOf(SvcError);
      expect(waited).toMatchObject(unreachable);
    } finally {
      await down.close();
      await one.close();
    }
  });

  it('maps a statement past its timeout to unavailable', async () => {
    const slow = new PgDb(fresh.url, { statementTimeoutMs: 50, poolSize: 1 });
    try {
      const err = await slow.query('SELECT pg_sleep(2)').catch((e: unknown) => e);
      expect(pgStoreError(err, 'x')).toMatchObject({
        code: 'unavailable',
        reason: 'the database is busy; nothing was committed or executed',
      });
    } finally {
      await slow.close();
    }
  });

  it('refuses to connect to a server that is not there, without showing the password', async () => {
    const err = await PgDb.connect('postgresql://svc:s3cret-pw@127.0.0.1:1/svc', {
      connectTimeoutMs: 2000,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SvcError);
    expect(err).toMatchObject({ code: 'unavailable' });
    expect((err as SvcError).reason).toContain('postgresql://svc:***@127.0.0.1:1/svc');
    expect((err as SvcError).reason).not.toContain('s3cret-pw');
  });

  it("opens every session with svc's limits: defaults, or what the URL sets", async () => {
    const limits = (d: PgDb) =>
      d.query<{ s: string; l: string; i: string }>(
        `SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l,
           current_setting('idle_in_transaction_session_timeout') AS i`,
      );
    expect(await limits(db)).toEqual([{ s: '30s', l: '10s', i: '1min' }]);
    const sep = fresh.url.includes('?') ? '&' : '?';
    const tuned = await PgDb.connect(
      `${fresh.url}${sep}statement_timeout=4000&lock_timeout=250&idle_in_transaction_session_timeout=7000&pool_size=2`,
    );
    try {
      expect(await limits(tuned)).toEqual([{ s: '4s', l: '250ms', i: '7s' }]);
      expect(tuned.pool.options.max).toBe(2);
      // the lock limit is what ends a wait on a lock an outside session holds
      const holder = await db.pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE tenants IN ACCESS EXCLUSIVE MODE');
        const err = await tuned.query('SELECT count(*) FROM tenants').catch((e: unknown) => e);
        expect((err as { code?: string }).code).toBe('55P03');
        expect(pgStoreError(err, 'x')).toMatchObject({ code: 'unavailable' });
      } finally {
        await holder.query('ROLLBACK');
        holder.release();
      }
    } finally {
      await tuned.close();
    }
  });

  it('with several hosts, skips one that refuses connections and works on the next', async () => {
    const real = new URL(fresh.url);
    const multi = `postgresql://${real.username}@127.0.0.1:1,${real.host}${real.pathname}${real.search}`;
    const db2 = await PgDb.connect(multi, { connectTimeoutMs: 5000 });
    try {
      expect(await db2.query<{ n: number }>('SELECT 1 AS n')).toEqual([{ n: 1 }]);
      expect(db2.currentUrl()).toContain(real.host);
      expect(db2.redactedUrl).toBe(multi);
    } finally {
      await db2.close();
    }
  });

  it('asked for a writable session (target_session_attrs), refuses a host whose sessions are read-only', async () => {
    const ro = await freshDatabase();
    try {
      const name = new URL(ro.url).pathname.slice(1);
      await db.query(`ALTER ROLE CURRENT_USER IN DATABASE "${name}" SET default_transaction_read_only = on`);
      const sep = ro.url.includes('?') ? '&' : '?';
      const err = await PgDb.connect(`${ro.url}${sep}target_session_attrs=read-write`).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SvcError);
      expect(err).toMatchObject({ code: 'unavailable' });
      expect((err as SvcError).reason).toMatch(/accepts no writes/);
      // without the attribute a single host is taken as it is (/readyz says it is read-only)
      const plain = await PgDb.connect(ro.url);
      await plain.close();
    } finally {
      await ro.drop();
    }
  });

  it('refuses a pool size that is not a positive integer', () => {
    expect(() => new PgDb(fresh.url, { poolSize: 0 })).toThrow(/pool size/);
  });

  it('serialises transactions on one tenant and leaves other tenants free', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const first = db.tx(async (tx) => {
      await lockTenant(tx, 't1');
      locked();
      await held;
    });
    await isLocked;
    const order: string[] = [];
    const second = db.tx(async (tx) => {
      await lockTenant(tx, 't1');
      order.push('second');
    });
    // Another tenant is not held up by t1's lock (sets of tenants lock in sorted order).
    await db.tx(async (tx) => {
      await lockTenants(tx, ['t2', 't2']);
      order.push('other tenant');
    });
    await waitFor(async () => {
      const [row] = await db.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      );
      return row?.n === '1';
    });
    expect(order).toEqual(['other tenant']);
    release();
    await first;
    await second;
    expect(order).toEqual(['other tenant', 'second']);
  });
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in 10 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}
