import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import { PgCommitQueue } from '../../../src/store/postgres/commit-queue.js';
import { PgDb } from '../../../src/store/postgres/database.js';
import { freshDatabase, pgAvailable } from '../../helpers/postgres.js';

const server = await pgAvailable();

/**
 * A connection lost during a batch's COMMIT may or may not have committed: the callers must
 * not be told "nothing was committed" (the spec's 503 for an uncertain outcome names what to
 * reconcile). A connection lost before the COMMIT is the plain, certain 503.
 *
 * The loss is real: a deferred constraint trigger runs inside the COMMIT and ends its own
 * backend (57P01), so the client sees its connection go while COMMIT is in flight.
 */
describe.skipIf('skip' in server)('group commit: a connection lost before or during COMMIT', () => {
  let database: { url: string; drop(): Promise<void> };
  let db: PgDb;

  beforeAll(async () => {
    database = await freshDatabase();
    db = await PgDb.connect(database.url, { poolSize: 2 });
    await db.query(`CREATE TABLE doomed (x int)`);
    await db.query(`CREATE FUNCTION end_own_backend() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5); RETURN NULL; END $$`);
    await db.query(`CREATE CONSTRAINT TRIGGER at_commit AFTER INSERT ON doomed
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION end_own_backend()`);
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('lost during COMMIT: 503 unavailable that says the outcome is unknown and names the intent', async () => {
    const queue = new PgCommitQueue(db);
    const err = await queue
      .submit('acme', async (tx) => {
        await tx.query('INSERT INTO doomed VALUES (1)');
        return { intentId: 'int_0123456789abcdef0123456789abcdef' };
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SvcError);
    const e = err as SvcError;
    expect(e.code).toBe('unavailable');
    expect(e.reason).toMatch(/while intent int_0123456789abcdef0123456789abcdef was being committed/);
    expect(e.reason).toMatch(/outcome is unknown/);
    expect(e.reason).not.toMatch(/nothing was committed/);
    expect(e.remedy).toMatch(/GET \/v1\/receipts\?task_id=/);
    expect(e.remedy).toMatch(/same body and effect key/);
  });

  it('lost before COMMIT: nothing was committed, said so', async () => {
    const queue = new PgCommitQueue(db);
    const err = await queue
      .submit('acme', async (tx) => {
        await tx.query('SELECT pg_terminate_backend(pg_backend_pid())');
        await tx.query('SELECT 1');
        return { intentId: 'int_ffffffffffffffffffffffffffffffff' };
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SvcError);
    expect((err as SvcError).code).toBe('unavailable');
    expect((err as SvcError).reason).toMatch(/nothing was committed or executed/);
  });
});
