import { describe, expect, it } from 'vitest';
import { finishExecution } from '../../src/core/execution.js';
import type { ExecutionOutcome } from '../../src/core/records/execution-record.js';
import { runAsync, runSync } from '../../src/core/use-case.js';
import { executionOpsIn } from '../../src/store/postgres/executions.js';
import { executionOps } from '../../src/store/sqlite/executions.js';
import { expectConflict, inTenant, pgDb, raceStores } from '../helpers/guard-race.js';
import { beforeOp, thrown } from '../helpers/op-race.js';
import { pgAvailable } from '../helpers/postgres.js';

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

const conflict = (err: unknown) => expectConflict(err, 'the outcome of execution exe_1');

describe('an execution whose outcome another writer recorded between the read and the write', () => {
  const stores = raceStores();

  it('sqlite: fails with a coded conflict and rolls back', async () => {
    const sqlite = await stores.sqlite();
    const db = sqlite.store.db;
    db.prepare(PENDING).run();
    // The single writer admits no second connection mid-transaction: the racer writes on this one.
    const raced = beforeOp(executionOps(db), 'finish', () => db.prepare(RACER).run());
    const finish = db.transaction(() =>
      runSync(
        finishExecution('acme', 'exe_1', answered, () => sqlite.now.value),
        raced,
      ),
    );
    conflict(await thrown(() => finish.immediate()));
    expect(db.prepare("SELECT state FROM executions WHERE id = 'exe_1'").pluck().get()).toBe('pending');
    expect(db.prepare("SELECT count(*) FROM journal WHERE kind = 'execution'").pluck().get()).toBe(0);
  });

  it.skipIf('skip' in server)('postgres: fails with a coded conflict; the other outcome stands', async () => {
    const pg = await stores.postgres();
    const db = pgDb(pg);
    await db.query(PENDING);
    const err = await thrown(() =>
      inTenant(pg, executionOpsIn, (ops) =>
        // Another connection (a replica that skipped the lock) records its outcome first.
        runAsync(
          finishExecution('acme', 'exe_1', answered, () => pg.now.value),
          beforeOp(ops, 'finish', () => db.query(RACER)),
        ),
      ),
    );
    conflict(err);
    expect(await db.query("SELECT state FROM executions WHERE id = 'exe_1'")).toEqual([{ state: 'failed' }]);
    expect(await db.query("SELECT 1 FROM journal WHERE kind = 'execution'")).toEqual([]);
  });
});
