import { SvcError } from '../../core/errors.js';
import { microsToDecimal, type Micros } from '../../core/money.js';
import type { Task } from '../../core/task.js';
import type { TaskRepo } from '../registry-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant } from './locks.js';
import { TASK_SELECT, toTask, type PgTaskRow } from './registry-rows.js';

const SELECT_ONE = `${TASK_SELECT} WHERE t.tenant_id = $1 AND t.id = $2`;

const INSERT_ACTOR =
  'INSERT INTO task_actors (tenant_id, task_id, actor_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING';

export class PgTasks implements TaskRepo {
  constructor(private readonly db: PgDb) {}

  async create(task: Task): Promise<void> {
    await this.write(task.tenantId, `task ${task.id} in tenant ${task.tenantId}`, async (tx) => {
      // Checked again under the tenant's lock: the parent may have closed since the caller looked.
      if (task.parentId !== null) await open(tx, task.tenantId, task.parentId, 'parent task');
      await tx.query(
        `INSERT INTO tasks (tenant_id, id, title, sponsor_id, status, parent_id, root_id, budget_micros,
           reserved_micros, created_at, closed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          task.tenantId,
          task.id,
          task.title,
          task.sponsorId,
          task.status,
          task.parentId,
          task.rootId,
          task.budgetMicros.toString(),
          task.reservedMicros.toString(),
          task.createdAt,
          task.closedAt,
        ],
      );
      for (const actor of task.actors) await tx.query(INSERT_ACTOR, [task.tenantId, task.id, actor]);
    });
  }

  async get(tenantId: string, id: string): Promise<Task | undefined> {
    const [r] = await this.db.query<PgTaskRow>(SELECT_ONE, [tenantId, id]);
    return r && toTask(r);
  }

  async list(tenantId: string, opts: { limit: number; after?: string; visibleTo?: string }): Promise<Task[]> {
    const rows = await this.db.query<PgTaskRow>(
      `${TASK_SELECT} WHERE t.tenant_id = $1 AND ($2::text IS NULL OR t.id COLLATE "C" > $2)
         AND ($3::text IS NULL OR t.sponsor_id = $3 OR EXISTS (SELECT 1 FROM task_actors v
           WHERE v.tenant_id = t.tenant_id AND v.task_id = t.id AND v.actor_id = $3))
       ORDER BY t.id COLLATE "C" LIMIT $4`,
      [tenantId, opts.after ?? null, opts.visibleTo ?? null, opts.limit],
    );
    return rows.map(toTask);
  }

  async close(tenantId: string, id: string, at: string): Promise<Task> {
    return this.write(tenantId, `task ${id} in tenant ${tenantId}`, async (tx) => {
      await open(tx, tenantId, id, 'task');
      await tx.query(`UPDATE tasks SET status = 'closed', closed_at = $1 WHERE tenant_id = $2 AND id = $3`, [
        at,
        tenantId,
        id,
      ]);
      return must(tx, tenantId, id);
    });
  }

  async setBudget(tenantId: string, id: string, budget: Micros): Promise<Task> {
    return this.write(tenantId, `task ${id} in tenant ${tenantId}`, async (tx) => {
      const task = await open(tx, tenantId, id, 'task');
      // Under the tenant's lock, which every reserving decision takes: none reserves in between.
      if (budget < task.reservedMicros) {
        const reserved = microsToDecimal(task.reservedMicros);
        throw new SvcError(
          'conflict',
          `task ${id} already has ${reserved} USD reserved; its budget cannot be set below that`,
          { field: 'set', remedy: `set a budget of at least ${reserved} USD` },
        );
      }
      await tx.query('UPDATE tasks SET budget_micros = $1 WHERE tenant_id = $2 AND id = $3', [
        budget.toString(),
        tenantId,
        id,
      ]);
      return must(tx, tenantId, id);
    });
  }

  async assign(tenantId: string, id: string, actorIds: string[]): Promise<Task> {
    return this.write(tenantId, `an actor of task ${id} in tenant ${tenantId}`, async (tx) => {
      await open(tx, tenantId, id, 'task');
      for (const actor of actorIds) await tx.query(INSERT_ACTOR, [tenantId, id, actor]);
      return must(tx, tenantId, id);
    });
  }

  /** One transaction under the tenant's lock: task state is what budgets are decided on. */
  private async write<T>(tenantId: string, what: string, fn: (tx: PgTx) => Promise<T>): Promise<T> {
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, tenantId);
        return fn(tx);
      });
    } catch (err) {
      throw pgStoreError(err, what);
    }
  }
}

/** The task, which must exist and not be closed: closing is final. */
async function open(tx: PgTx, tenantId: string, id: string, what: string): Promise<Task> {
  const task = await must(tx, tenantId, id, what);
  if (task.status === 'closed') {
    throw new SvcError('conflict', `${what} ${id} is closed (since ${task.closedAt ?? 'unknown'})`, {
      remedy: 'a closed task is final: create a new task',
    });
  }
  return task;
}

async function must(tx: PgTx, tenantId: string, id: string, what = 'task'): Promise<Task> {
  const [r] = await tx.query<PgTaskRow>(SELECT_ONE, [tenantId, id]);
  if (r === undefined) {
    throw new SvcError('not_found', `${what} ${id} does not exist in tenant ${tenantId}`, {
      remedy: `see \`svc task list --tenant ${tenantId}\``,
    });
  }
  return toTask(r);
}
