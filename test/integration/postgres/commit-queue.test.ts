import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PgCommitQueue } from '../../../src/store/postgres/commit-queue.js';
import { PgDb } from '../../../src/store/postgres/database.js';
import { freshDatabase, pgAvailable } from '../../helpers/postgres.js';

const server = await pgAvailable();

/** The lock key svc takes for a tenant (locks.ts), held from an outside session as another replica would. */
const TENANT_LOCK = "SELECT pg_advisory_lock(hashtextextended('svc:tenant:' || $1, 0))";

describe.skipIf('skip' in server)('the PostgreSQL commit queue with tenants locked elsewhere', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let db: PgDb;
  let other: pg.Client;

  beforeAll(async () => {
    fresh = await freshDatabase();
    db = new PgDb(fresh.url, { poolSize: 4 });
    other = new pg.Client({ connectionString: fresh.url });
    await other.connect();
  });

  afterAll(async () => {
    await other?.end();
    await db?.close();
    await fresh?.drop();
  });

  it('a batch of several tenants runs the ones it can lock at once and the held one after its release', async () => {
    const queue = new PgCommitQueue(db, { lockTimeoutMs: 60_000 });
    // another replica's batch holds tenant a-held, which sorts before b-free
    await other.query(TENANT_LOCK, ['a-held']);
    const order: string[] = [];
    const job = (tenant: string) =>
      queue.submit(tenant, async (tx) => {
        await tx.query('SELECT 1');
        order.push(tenant);
        return tenant;
      });
    // submitted in one turn: one batch holding both tenants
    const held = job('a-held');
    const free = [job('b-free'), job('b-free')];
    await expect(Promise.all(free)).resolves.toEqual(['b-free', 'b-free']);
    expect(order).toEqual(['b-free', 'b-free']);
    // the held tenant's job waits, in the queue, for the lock: nothing of it ran
    await new Promise((r) => setTimeout(r, 200));
    expect(order).toEqual(['b-free', 'b-free']);
    await other.query("SELECT pg_advisory_unlock(hashtextextended('svc:tenant:' || $1, 0))", ['a-held']);
    await expect(held).resolves.toBe('a-held');
    expect(order).toEqual(['b-free', 'b-free', 'a-held']);
  });

  it('a batch whose every tenant is locked elsewhere waits for the oldest job’s tenant, and serves the rest in turn', async () => {
    const queue = new PgCommitQueue(db, { lockTimeoutMs: 60_000 });
    await other.query(TENANT_LOCK, ['x']);
    await other.query(TENANT_LOCK, ['y']);
    const order: string[] = [];
    const job = (tenant: string) =>
      queue.submit(tenant, async () => {
        order.push(tenant);
        return tenant;
      });
    const answers = Promise.all([job('y'), job('x'), job('y')]);
    await new Promise((r) => setTimeout(r, 200));
    expect(order).toEqual([]);
    await other.query("SELECT pg_advisory_unlock(hashtextextended('svc:tenant:' || $1, 0))", ['y']);
    // the oldest job's tenant (y) runs once its lock is free; x still waits
    await vi.waitFor(() => expect(order).toEqual(['y', 'y']), { timeout: 30_000 });
    await other.query("SELECT pg_advisory_unlock(hashtextextended('svc:tenant:' || $1, 0))", ['x']);
    await expect(answers).resolves.toEqual(['y', 'x', 'y']);
    expect(order).toEqual(['y', 'y', 'x']);
  });
});
