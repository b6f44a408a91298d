import {
  budgetChange,
  taskAssignment,
  taskClose,
  taskCreation,
  type TaskOps,
} from '../../core/task-change.js';
import type { Micros } from '../../core/money.js';
import type { Task } from '../../core/task.js';
import { runAsync, type Async, type UseCase } from '../../core/use-case.js';
import type { TaskRepo } from '../registry-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant } from './locks.js';
import { TASK_SELECT, toTask, type PgTaskRow } from './registry-rows.js';

const SELECT_ONE = `${TASK_SELECT} WHERE t.tenant_id = $1 AND t.id = $2`;

/**
 * The reads and writes core/task-change.ts asks for, on the transaction that holds the
 * tenant's lock. Guarded writes answer the rows they changed.
 */
export function pgTaskOps(tx: PgTx): Async<TaskOps> {
  return {
    task: async (tenantId, id) => {
      const [r] = await tx.query<PgTaskRow>(SELECT_ONE, [tenantId, id]);
      return r && toTask(r);
    },
    // INSERT ... SELECT, so the row goes in only while the parent still has the status it was judged on.
    insert: async (task, parentStatus) =>
      (
        await tx.query(
          `INSERT INTO tasks (tenant_id, id, title, sponsor_id, status, parent_id, root_id, budget_micros,
             reserved_micros, created_at, closed_at)
           SELECT $1, $2, $3, $4, $5, $6::text, $7, $8::bigint, $9::bigint, $10, $11
           WHERE $6::text IS NULL OR EXISTS (SELECT 1 FROM tasks p
             WHERE p.tenant_id = $1 AND p.id = $6::text AND p.status = $12)
           RETURNING 1`,
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
            parentStatus,
          ],
        )
      ).length,
    close: async (tenantId, id, at, status) =>
      (
        await tx.query(
          `UPDATE tasks SET status = 'closed', closed_at = $1 WHERE tenant_id = $2 AND id = $3 AND status = $4
           RETURNING 1`,
          [at, tenantId, id, status],
        )
      ).length,
    setBudget: async (tenantId, id, budget, status) =>
      (
        await tx.query(
          `UPDATE tasks SET budget_micros = $1 WHERE tenant_id = $2 AND id = $3 AND status = $4
             AND reserved_micros <= $1 RETURNING 1`,
          [budget.toString(), tenantId, id, status],
        )
      ).length,
    // one statement for all of them: a round trip per agent bought nothing
    addActors: async (tenantId, id, actorIds) => {
      await tx.query(
        `INSERT INTO task_actors (tenant_id, task_id, actor_id) SELECT $1, $2, unnest($3::text[])
         ON CONFLICT DO NOTHING`,
        [tenantId, id, actorIds],
      );
    },
  };
}

/** Tasks on PostgreSQL: reads here, changes through the use cases of core/task-change.ts. */
export class PgTasks implements TaskRepo {
  constructor(private readonly db: PgDb) {}

  async create(task: Task): Promise<void> {
    await this.write(task.tenantId, taskCreation(task), `task ${task.id} in tenant ${task.tenantId}`);
  }

  async get(tenantId: string, id: string): Promise<Task | undefined> {
    return pgTaskOps(this.db).task(tenantId, id);
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
    return this.write(tenantId, taskClose(tenantId, id, at), `task ${id} in tenant ${tenantId}`);
  }

  async setBudget(tenantId: string, id: string, budget: Micros): Promise<Task> {
    return this.write(tenantId, budgetChange(tenantId, id, budget), `task ${id} in tenant ${tenantId}`);
  }

  async assign(tenantId: string, id: string, actorIds: string[]): Promise<Task> {
    return this.write(
      tenantId,
      taskAssignment(tenantId, id, actorIds),
      `an actor of task ${id} in tenant ${tenantId}`,
    );
  }

  /** One transaction under the tenant's lock: task state is what budgets are decided on. */
  private async write<T>(tenantId: string, useCase: UseCase<TaskOps, T>, what: string): Promise<T> {
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, tenantId);
        return runAsync(useCase, pgTaskOps(tx));
      });
    } catch (err) {
      throw pgStoreError(err, what);
    }
  }
}
