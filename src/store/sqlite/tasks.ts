import type Database from 'better-sqlite3';
import type { Micros } from '../../core/money.js';
import type { Task, TaskStatus } from '../../core/task.js';
import {
  budgetChange,
  taskAssignment,
  taskClose,
  taskCreation,
  type TaskOps,
} from '../../core/task-change.js';
import { runSync, type UseCase } from '../../core/use-case.js';
import type { TaskRepo } from '../registry-ports.js';
import { taskOf, type TaskColumns } from '../rows/task.js';
import { storeError, type Db } from './database.js';
import { writeTransaction } from './write-lock.js';

/** A tasks row read with safeIntegers (amounts as bigints), its agents as a JSON array. */
export interface TaskRow extends TaskColumns {
  budget_micros: bigint;
  reserved_micros: bigint;
  /** JSON array of the assigned agents */
  actors: string;
}

interface ListParams {
  tenant: string;
  after: string | null;
  visible: string | null;
  limit: number;
}

/** Task columns with the assigned agents as a JSON array; read with safeIntegers. */
export const TASK_COLUMNS = `t.tenant_id, t.id, t.title, t.sponsor_id, t.status, t.parent_id, t.root_id,
    t.budget_micros, t.reserved_micros, t.created_at, t.closed_at,
    (SELECT json_group_array(a.actor_id) FROM task_actors a
      WHERE a.tenant_id = t.tenant_id AND a.task_id = t.id) AS actors`;
export const TASK_SELECT = `SELECT ${TASK_COLUMNS} FROM tasks t`;

export function toTask(r: TaskRow): Task {
  return taskOf(r, JSON.parse(r.actors) as string[]);
}

/**
 * The reads and writes core/task-change.ts asks for, answered at once inside one write
 * transaction. Budget and reserved amounts go beyond 2^53: they are read as bigints.
 */
export function sqliteTaskOps(db: Db): TaskOps {
  const selectOne = db
    .prepare<[string, string], TaskRow>(`${TASK_SELECT} WHERE t.tenant_id = ? AND t.id = ?`)
    .safeIntegers(true);
  // INSERT ... SELECT, so the row goes in only while the parent still has the status it was judged on.
  const insert = db.prepare<[Record<string, unknown>]>(
    `INSERT INTO tasks (tenant_id, id, title, sponsor_id, status, parent_id, root_id, budget_micros,
       reserved_micros, created_at, closed_at)
     SELECT @tenant_id, @id, @title, @sponsor_id, @status, @parent_id, @root_id, @budget_micros,
       @reserved_micros, @created_at, @closed_at
     WHERE @parent_id IS NULL OR EXISTS (SELECT 1 FROM tasks p
       WHERE p.tenant_id = @tenant_id AND p.id = @parent_id AND p.status = @parent_status)`,
  );
  const insertActor = db.prepare<[string, string, string]>(
    'INSERT INTO task_actors (tenant_id, task_id, actor_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const close = db.prepare<[string, string, string, TaskStatus]>(
    `UPDATE tasks SET status = 'closed', closed_at = ? WHERE tenant_id = ? AND id = ? AND status = ?`,
  );
  const setBudget = db.prepare<[Micros, string, string, TaskStatus, Micros]>(
    'UPDATE tasks SET budget_micros = ? WHERE tenant_id = ? AND id = ? AND status = ? AND reserved_micros <= ?',
  );
  return {
    task: (tenantId, id) => {
      const r = selectOne.get(tenantId, id);
      return r && toTask(r);
    },
    insert: (task, parentStatus) =>
      insert.run({
        tenant_id: task.tenantId,
        id: task.id,
        title: task.title,
        sponsor_id: task.sponsorId,
        status: task.status,
        parent_id: task.parentId,
        root_id: task.rootId,
        budget_micros: task.budgetMicros,
        reserved_micros: task.reservedMicros,
        created_at: task.createdAt,
        closed_at: task.closedAt,
        parent_status: parentStatus,
      }).changes,
    close: (tenantId, id, at, status) => close.run(at, tenantId, id, status).changes,
    setBudget: (tenantId, id, budget, status) => setBudget.run(budget, tenantId, id, status, budget).changes,
    addActors: (tenantId, id, actorIds) => {
      for (const actor of actorIds) insertActor.run(tenantId, id, actor);
    },
  };
}

/** Tasks on SQLite: reads here, changes through the use cases of core/task-change.ts. */
export class SqliteTasks implements TaskRepo {
  private readonly selectPage: Database.Statement<[ListParams], TaskRow>;
  private readonly ops: TaskOps;

  constructor(private readonly db: Db) {
    this.ops = sqliteTaskOps(db);
    this.selectPage = db
      .prepare<[ListParams], TaskRow>(
        `${TASK_SELECT} WHERE t.tenant_id = @tenant AND (@after IS NULL OR t.id > @after)
           AND (@visible IS NULL OR t.sponsor_id = @visible OR EXISTS (SELECT 1 FROM task_actors v
             WHERE v.tenant_id = t.tenant_id AND v.task_id = t.id AND v.actor_id = @visible))
         ORDER BY t.id LIMIT @limit`,
      )
      .safeIntegers(true);
  }

  async create(task: Task): Promise<void> {
    await this.write(taskCreation(task), `task ${task.id} in tenant ${task.tenantId}`);
  }

  async get(tenantId: string, id: string): Promise<Task | undefined> {
    return this.ops.task(tenantId, id);
  }

  async list(tenantId: string, opts: { limit: number; after?: string; visibleTo?: string }): Promise<Task[]> {
    return this.selectPage
      .all({
        tenant: tenantId,
        after: opts.after ?? null,
        visible: opts.visibleTo ?? null,
        limit: opts.limit,
      })
      .map(toTask);
  }

  async close(tenantId: string, id: string, at: string): Promise<Task> {
    return this.write(taskClose(tenantId, id, at), `task ${id} in tenant ${tenantId}`);
  }

  async setBudget(tenantId: string, id: string, budget: Micros): Promise<Task> {
    return this.write(budgetChange(tenantId, id, budget), `task ${id} in tenant ${tenantId}`);
  }

  async assign(tenantId: string, id: string, actorIds: string[]): Promise<Task> {
    return this.write(taskAssignment(tenantId, id, actorIds), `an actor of task ${id} in tenant ${tenantId}`);
  }

  /** The use case inside one write transaction: what it read is what it writes on. */
  private async write<T>(useCase: UseCase<TaskOps, T>, what: string): Promise<T> {
    try {
      return await writeTransaction(
        this.db,
        this.db.transaction(() => runSync(useCase, this.ops)),
      );
    } catch (err) {
      throw storeError(err, what);
    }
  }
}
