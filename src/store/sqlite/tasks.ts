import type Database from 'better-sqlite3';
import { SvcError } from '../../core/errors.js';
import { microsToDecimal, type Micros } from '../../core/money.js';
import type { Task, TaskStatus } from '../../core/task.js';
import type { TaskRepo } from '../registry-ports.js';
import { storeError, type Db } from './database.js';
import { writeTransaction } from './write-lock.js';

export interface TaskRow {
  tenant_id: string;
  id: string;
  title: string | null;
  sponsor_id: string;
  status: TaskStatus;
  parent_id: string | null;
  root_id: string;
  budget_micros: bigint;
  reserved_micros: bigint;
  created_at: string;
  closed_at: string | null;
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
  return {
    tenantId: r.tenant_id,
    id: r.id,
    title: r.title,
    sponsorId: r.sponsor_id,
    status: r.status,
    parentId: r.parent_id,
    rootId: r.root_id,
    budgetMicros: r.budget_micros,
    reservedMicros: r.reserved_micros,
    actors: (JSON.parse(r.actors) as string[]).sort(),
    createdAt: r.created_at,
    closedAt: r.closed_at,
  };
}

export class SqliteTasks implements TaskRepo {
  private readonly selectOne: Database.Statement<[string, string], TaskRow>;
  private readonly selectPage: Database.Statement<[ListParams], TaskRow>;
  private readonly insert: Database.Statement<[Record<string, unknown>]>;
  private readonly insertActor: Database.Statement<[string, string, string]>;
  private readonly markClosed: Database.Statement<[string, string, string]>;
  private readonly updateBudget: Database.Statement<[Micros, string, string]>;

  constructor(private readonly db: Db) {
    // budget and reserved amounts go beyond 2^53: they are read as bigints.
    this.selectOne = db
      .prepare<[string, string], TaskRow>(`${TASK_SELECT} WHERE t.tenant_id = ? AND t.id = ?`)
      .safeIntegers(true);
    this.selectPage = db
      .prepare<[ListParams], TaskRow>(
        `${TASK_SELECT} WHERE t.tenant_id = @tenant AND (@after IS NULL OR t.id > @after)
           AND (@visible IS NULL OR t.sponsor_id = @visible OR EXISTS (SELECT 1 FROM task_actors v
             WHERE v.tenant_id = t.tenant_id AND v.task_id = t.id AND v.actor_id = @visible))
         ORDER BY t.id LIMIT @limit`,
      )
      .safeIntegers(true);
    this.insert = db.prepare<[Record<string, unknown>]>(
      `INSERT INTO tasks (tenant_id, id, title, sponsor_id, status, parent_id, root_id, budget_micros,
         reserved_micros, created_at, closed_at)
       VALUES (@tenant_id, @id, @title, @sponsor_id, @status, @parent_id, @root_id, @budget_micros,
         @reserved_micros, @created_at, @closed_at)`,
    );
    this.insertActor = db.prepare<[string, string, string]>(
      'INSERT INTO task_actors (tenant_id, task_id, actor_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    );
    this.markClosed = db.prepare<[string, string, string]>(
      `UPDATE tasks SET status = 'closed', closed_at = ? WHERE tenant_id = ? AND id = ?`,
    );
    this.updateBudget = db.prepare<[Micros, string, string]>(
      'UPDATE tasks SET budget_micros = ? WHERE tenant_id = ? AND id = ?',
    );
  }

  async create(task: Task): Promise<void> {
    const tx = this.db.transaction(() => {
      // Checked again under the write lock: the parent may have closed since the caller looked.
      if (task.parentId !== null) this.open(task.tenantId, task.parentId, 'parent task');
      this.insert.run({
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
      });
      for (const actor of task.actors) this.insertActor.run(task.tenantId, task.id, actor);
    });
    await this.write(tx, `task ${task.id} in tenant ${task.tenantId}`);
  }

  async get(tenantId: string, id: string): Promise<Task | undefined> {
    const r = this.selectOne.get(tenantId, id);
    return r && toTask(r);
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
    const tx = this.db.transaction(() => {
      this.open(tenantId, id, 'task');
      this.markClosed.run(at, tenantId, id);
      return this.must(tenantId, id);
    });
    return this.write(tx, `task ${id} in tenant ${tenantId}`);
  }

  async setBudget(tenantId: string, id: string, budget: Micros): Promise<Task> {
    const tx = this.db.transaction(() => {
      const task = this.open(tenantId, id, 'task');
      // Under the write lock, so no decision can reserve between this check and the update.
      if (budget < task.reservedMicros) {
        const reserved = microsToDecimal(task.reservedMicros);
        throw new SvcError(
          'conflict',
          `task ${id} already has ${reserved} USD reserved; its budget cannot be set below that`,
          { field: 'set', remedy: `set a budget of at least ${reserved} USD` },
        );
      }
      this.updateBudget.run(budget, tenantId, id);
      return this.must(tenantId, id);
    });
    return this.write(tx, `task ${id} in tenant ${tenantId}`);
  }

  async assign(tenantId: string, id: string, actorIds: string[]): Promise<Task> {
    const tx = this.db.transaction(() => {
      this.open(tenantId, id, 'task');
      for (const actor of actorIds) this.insertActor.run(tenantId, id, actor);
      return this.must(tenantId, id);
    });
    return this.write(tx, `an actor of task ${id} in tenant ${tenantId}`);
  }

  /** The task, which must exist and not be closed: closing is final. */
  private open(tenantId: string, id: string, what: string): Task {
    const task = this.must(tenantId, id, what);
    if (task.status === 'closed') {
      throw new SvcError('conflict', `${what} ${id} is closed (since ${task.closedAt ?? 'unknown'})`, {
        remedy: 'a closed task is final: create a new task',
      });
    }
    return task;
  }

  private must(tenantId: string, id: string, what = 'task'): Task {
    const r = this.selectOne.get(tenantId, id);
    if (r === undefined) {
      throw new SvcError('not_found', `${what} ${id} does not exist in tenant ${tenantId}`, {
        remedy: `see \`svc task list --tenant ${tenantId}\``,
      });
    }
    return toTask(r);
  }

  private async write<T>(tx: () => T, what: string): Promise<T> {
    try {
      return await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, what);
    }
  }
}
