import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../src/core/errors.js';
import { integrationOpRecord } from '../../src/core/records/integration-op-record.js';
import { redaction, type RedactionOps } from '../../src/core/redaction.js';
import { budgetChange, taskClose, taskCreation, type TaskOps } from '../../src/core/task-change.js';
import type { Task } from '../../src/core/task.js';
import { runAsync, runSync, type Async, type Operations, type UseCase } from '../../src/core/use-case.js';
import { PgDb, type PgTx } from '../../src/store/postgres/database.js';
import { appendJournal } from '../../src/store/postgres/journal.js';
import { lockTenant } from '../../src/store/postgres/locks.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { pgRedactionOps } from '../../src/store/postgres/redactions.js';
import { PgTasks, pgTaskOps } from '../../src/store/postgres/tasks.js';
import type { TaskRepo } from '../../src/store/registry-ports.js';
import { JournalWriter } from '../../src/store/sqlite/journal.js';
import { sqliteRedactionOps } from '../../src/store/sqlite/redactions.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { sqliteTaskOps } from '../../src/store/sqlite/tasks.js';
import { writeTransaction } from '../../src/store/sqlite/write-lock.js';
import { AT, seed } from '../helpers/pg-seed.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { tmpDir } from '../helpers/tmp.js';
import { taskRecord } from '../helpers/registry-records.js';

/** A statement with `?` placeholders: another writer's change, or a read of what stayed. */
type Sql = [sql: string, ...params: unknown[]];

/**
 * One adapter's real operations driven by the real use case in a real transaction, with
 * one operation preceded by another writer's change: the state the use case judged no
 * longer holds when its guarded write runs, which the tenant lock and the single writer
 * otherwise rule out. On SQLite the change runs on the transaction's own connection (the
 * only writer there is); on PostgreSQL through a second connection that commits at once.
 */
interface Adapter {
  tasks: TaskRepo;
  /** run a use case of core/task-change.ts with `change` made just before its operation `op` */
  tasks$<R>(useCase: UseCase<TaskOps, R>, op: keyof TaskOps, change: Sql): Promise<R>;
  redact$<R>(useCase: UseCase<RedactionOps, R>, op: keyof RedactionOps, change: Sql): Promise<R>;
  /** plain journal entries (integration operations) */
  appendEntries(n: number): Promise<void>;
  scalar(...q: Sql): Promise<number | string | null>;
  close(): Promise<void>;
}

/** The operations with `before()` run ahead of the one named. */
function preceded<P extends object>(ops: P, op: keyof P, before: () => unknown): P {
  const original = ops[op] as (...a: unknown[]) => unknown;
  return {
    ...ops,
    [op]: (...args: unknown[]) => {
      const ran = before();
      return ran instanceof Promise ? ran.then(() => original(...args)) : original(...args);
    },
  };
}

const entry = (i: number) =>
  integrationOpRecord({
    tenantId: 'acme',
    surfaceId: 'crm',
    actorId: 'alice',
    at: AT,
    fields: { action: 'check', outcome: 'ok', reason: `check ${i}` },
  });

function sqlite(): Adapter {
  const dir = tmpDir('svc-guards-');
  const store = SqliteStore.open(join(dir.path, 'svc.db'));
  const db = store.db;
  db.prepare('INSERT INTO tenants (id, created_at) VALUES (?, ?)').run('acme', AT);
  for (const [id, kind] of [
    ['alice', 'human'],
    ['bot', 'agent'],
  ])
    db.prepare(
      `INSERT INTO actors (tenant_id, id, kind, roles, created_at) VALUES ('acme', ?, ?, '[]', ?)`,
    ).run(id, kind, AT);
  const run = <P extends Operations<P>, R>(useCase: UseCase<P, R>, ops: P): Promise<R> =>
    writeTransaction(
      db,
      db.transaction(() => runSync(useCase, ops)),
    );
  const change =
    ([sql, ...params]: Sql) =>
    () =>
      db.prepare(sql).run(...params);
  return {
    tasks: store.tasks,
    tasks$: (useCase, op, c) => run(useCase, preceded(sqliteTaskOps(db), op, change(c))),
    redact$: (useCase, op, c) => run(useCase, preceded(sqliteRedactionOps(db), op, change(c))),
    appendEntries: async (n) => {
      const journal = new JournalWriter(db);
      await writeTransaction(
        db,
        db.transaction(() => {
          for (let i = 0; i < n; i++) journal.append(entry(i), AT);
        }),
      );
    },
    scalar: async (sql, ...params) =>
      db
        .prepare(sql)
        .pluck()
        .get(...params) as number | string | null,
    close: async () => {
      await store.close();
      dir.cleanup();
    },
  };
}

async function postgres(): Promise<Adapter> {
  const fresh = await freshDatabase();
  const db = new PgDb(fresh.url, { poolSize: 2 });
  const other = new PgDb(fresh.url, { poolSize: 1 });
  await migrate(db);
  await seed(db);
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replaceAll('?', () => `$${++n}`);
  };
  const change =
    ([sql, ...params]: Sql) =>
    () =>
      other.query(numbered(sql), params);
  const run = <P extends Operations<P>, R>(useCase: UseCase<P, R>, ops: (tx: PgTx) => Async<P>): Promise<R> =>
    db.tx(async (tx) => {
      await lockTenant(tx, 'acme');
      return runAsync(useCase, ops(tx));
    });
  return {
    tasks: new PgTasks(db),
    tasks$: (useCase, op, c) => run(useCase, (tx) => preceded(pgTaskOps(tx), op, change(c))),
    redact$: (useCase, op, c) => run(useCase, (tx) => preceded(pgRedactionOps(tx), op, change(c))),
    appendEntries: async (n) => {
      await db.tx(async (tx) => {
        await lockTenant(tx, 'acme');
        for (let i = 0; i < n; i++) await appendJournal(tx, entry(i), AT);
      });
    },
    scalar: async (sql, ...params) => {
      const [row] = await db.query<Record<string, number | string | null>>(numbered(sql), params);
      return row === undefined ? null : (Object.values(row)[0] ?? null);
    },
    close: async () => {
      await Promise.all([db.close(), other.close()]);
      await fresh.drop();
    },
  };
}

function task(id: string, over: Partial<Task> = {}): Task {
  return taskRecord('acme', id, AT, { budgetMicros: 10_000_000n, actors: [], ...over });
}

async function conflict(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SvcError);
  expect((err as SvcError).code).toBe('conflict');
  return (err as SvcError).reason;
}

const server = await pgAvailable();
const ADAPTERS = [
  { name: 'sqlite', open: async () => sqlite(), skip: false },
  { name: 'postgres', open: postgres, skip: 'skip' in server },
];

describe.each(ADAPTERS)('guarded writes of tasks and redactions on $name', ({ open, skip }) => {
  let a: Adapter;
  beforeAll(async () => {
    if (!skip) a = await open();
  });
  afterAll(async () => a?.close());

  it.skipIf(skip)(
    'a budget is not set when a reservation lands between the check and the write',
    async () => {
      await a.tasks.create(task('b'));
      const reason = await conflict(
        a.tasks$(budgetChange('acme', 'b', 2_000_000n), 'setBudget', [
          `UPDATE tasks SET reserved_micros = 3000000 WHERE tenant_id = 'acme' AND id = 'b'`,
        ]),
      );
      expect(reason).toBe(
        'the budget of task b changed 0 rows, not one: the state it was decided on no longer holds; retry',
      );
      expect(
        Number(await a.scalar(`SELECT budget_micros FROM tasks WHERE tenant_id = 'acme' AND id = 'b'`)),
      ).toBe(10_000_000);
    },
  );

  it.skipIf(skip)('a task closed by another writer in between is not closed again', async () => {
    await a.tasks.create(task('c'));
    const at = '2026-06-02T00:00:00.000Z';
    const reason = await conflict(
      a.tasks$(taskClose('acme', 'c', at), 'close', [
        `UPDATE tasks SET status = 'closed', closed_at = ? WHERE tenant_id = 'acme' AND id = 'c'`,
        '2026-06-01T23:00:00.000Z',
      ]),
    );
    expect(reason).toMatch(/^the close of task c changed 0 rows, not one/);
    expect(await a.scalar(`SELECT closed_at FROM tasks WHERE tenant_id = 'acme' AND id = 'c'`)).not.toBe(at);
  });

  it.skipIf(skip)('a child is not inserted under a parent that closed in between', async () => {
    await a.tasks.create(task('p'));
    const reason = await conflict(
      a.tasks$(taskCreation(task('p.child', { parentId: 'p', rootId: 'p', actors: ['bot'] })), 'insert', [
        `UPDATE tasks SET status = 'closed' WHERE tenant_id = 'acme' AND id = 'p'`,
      ]),
    );
    expect(reason).toMatch(/^the insert of task p\.child changed 0 rows, not one/);
    expect(
      Number(await a.scalar(`SELECT COUNT(*) FROM tasks WHERE tenant_id = 'acme' AND id = 'p.child'`)),
    ).toBe(0);
    expect(Number(await a.scalar(`SELECT COUNT(*) FROM task_actors WHERE task_id = 'p.child'`))).toBe(0);
  });

  it.skipIf(skip)('a redaction whose range was redacted in part in between rolls back whole', async () => {
    await a.appendEntries(3);
    const reason = await conflict(
      a.redact$(
        redaction({ tenantId: 'acme', from: 1, to: 3, reason: 'retention', authorisedBy: 'alice', at: AT }),
        'apply',
        [`UPDATE journal SET tombstone = '{}' WHERE tenant_id = 'acme' AND sequence = 2`],
      ),
    );
    expect(reason).toBe(
      'the redaction of entries 1..3 changed 2 rows, not 3: the state it was decided on no longer holds; retry',
    );
    // R and the blanking rolled back with the conflict
    expect(Number(await a.scalar(`SELECT COUNT(*) FROM journal WHERE tenant_id = 'acme'`))).toBe(3);
    expect(Number(await a.scalar(`SELECT size FROM journal_state WHERE tenant_id = 'acme'`))).toBe(3);
    expect(
      Number(await a.scalar(`SELECT COUNT(*) FROM journal WHERE tenant_id = 'acme' AND record = '{}'`)),
    ).toBe(0);
  });
});
