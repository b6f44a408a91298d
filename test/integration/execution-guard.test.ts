import { afterEach, describe, expect, it } from 'vitest';
import { SvcError } from '../../src/core/errors.js';
import { finishExecution, type ExecutionOps } from '../../src/core/execution.js';
import type { ExecutionOutcome } from '../../src/core/records/execution-record.js';
import { runAsync, runSync } from '../../src/core/use-case.js';
import { executionOpsIn } from '../../src/store/postgres/executions.js';
import { lockTenant } from '../../src/store/postgres/locks.js';
import type { PgStore } from '../../src/store/postgres/store.js';
import type { Store } from '../../src/store/ports.js';
import { executionOps } from '../../src/store/sqlite/executions.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';

/**
 * A brokered call's outcome is set only where the execution is still in the state it was
 * judged in, and must change one row. Another writer recording an outcome between the read
 * and the write (which the single writer and the tenant lock rule out today) fails this one
 * with the coded conflict: the first outcome stands, and no second receipt is journaled.
 */
const server = await pgAvailable();
const PENDING = `INSERT INTO executions (tenant_id, id, intent_id, task_id, step, actor_id, capability, action, tier,
  surface_id, operation, credential_ref, state, created_at)
  VALUES ('acme', 'exe_1', 'int_1', 't1', 's1', 'bot', 'crm.write', 'write', 2, 'crm', 'contacts.create', 'env:CRM',
  'pending', 'x')`;
const RACER = "UPDATE executions SET state = 'failed' WHERE id = 'exe_1'";
const answered: ExecutionOutcome & { sentDigest: string | null } = {
  outcome: 'succeeded',
  sent: true,
  status: 201,
  effectId: 'contact-42',
  digest: null,
  bytes: 0,
  error: null,
  reason: 'the provider answered 201',
  sentDigest: null,
};

const conflict = (err: unknown) => {
  expect(err).toBeInstanceOf(SvcError);
  expect(err).toMatchObject({
    kind: 'conflict',
    message:
      'the outcome of execution exe_1 changed 0 rows, not one: the state it was decided on no longer holds; retry',
  });
};

async function failure(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the outcome to fail');
}

describe('an execution whose outcome another writer recorded between the read and the write', () => {
  let f: Fixture<Store> | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await f?.close();
    await drop?.();
    f = drop = undefined;
  });

  it('sqlite: fails with a coded conflict and rolls back', async () => {
    const sqlite = await fixture();
    f = sqlite;
    const db = sqlite.store.db;
    db.prepare(PENDING).run();
    const ops = executionOps(db);
    // The single writer admits no second connection mid-transaction: the racer writes on this one.
    const raced: ExecutionOps = {
      ...ops,
      finish: (...args) => {
        db.prepare(RACER).run();
        return ops.finish(...args);
      },
    };
    const finish = db.transaction(() =>
      runSync(
        finishExecution('acme', 'exe_1', answered, () => sqlite.now.value),
        raced,
      ),
    );
    conflict(await failure(() => finish.immediate()));
    expect(db.prepare("SELECT state FROM executions WHERE id = 'exe_1'").pluck().get()).toBe('pending');
    expect(db.prepare("SELECT count(*) FROM journal WHERE kind = 'execution'").pluck().get()).toBe(0);
  });

  it.skipIf('skip' in server)('postgres: fails with a coded conflict; the other outcome stands', async () => {
    const fresh = await freshDatabase();
    drop = fresh.drop;
    const pg = await fixture({ postgres: fresh.url });
    f = pg;
    const db = (pg.store as PgStore).db;
    await db.query(PENDING);
    const err = await failure(() =>
      db.tx(async (tx) => {
        await lockTenant(tx, 'acme');
        const ops = executionOpsIn(tx);
        // Another connection (a replica that skipped the lock) records its outcome first.
        return runAsync(
          finishExecution('acme', 'exe_1', answered, () => pg.now.value),
          {
            ...ops,
            finish: async (...args) => {
              await db.query(RACER);
              return ops.finish(...args);
            },
          },
        );
      }),
    );
    conflict(err);
    expect(await db.query("SELECT state FROM executions WHERE id = 'exe_1'")).toEqual([{ state: 'failed' }]);
    expect(await db.query("SELECT 1 FROM journal WHERE kind = 'execution'")).toEqual([]);
  });
});
