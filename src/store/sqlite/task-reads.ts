import type Database from 'better-sqlite3';
import type { Actor } from '../../core/actor.js';
import { readsTask, readsWholeTenant } from '../../core/readers.js';
import type { Keyset, KeysetPage, TaskReads, TaskSummary } from '../query-ports.js';
import type { Db } from './database.js';
import { keysetPage } from '../rows/keyset.js';
import type { TaskStatus } from '../../core/task.js';
import { TASK_COLUMNS, toTask, type TaskRow } from './tasks.js';

export interface TaskSummaryRow extends TaskRow {
  constrained: bigint;
}

/** A task with whether its root carries execution constraints. */
export const TASK_SUMMARY = `SELECT ${TASK_COLUMNS},
    EXISTS (SELECT 1 FROM tasks r WHERE r.tenant_id = t.tenant_id AND r.id = t.root_id
      AND r.constraints IS NOT NULL) AS constrained
  FROM tasks t`;

export function toTaskSummary(r: TaskSummaryRow): TaskSummary {
  return { ...toTask(r), constraintsInstalled: r.constrained === 1n };
}

interface PageParams {
  tenant: string;
  all: number;
  viewer: string;
  status: string | null;
  after: string | null;
  limit: number;
}

export class SqliteTaskReads implements TaskReads {
  private readonly one: Database.Statement<[string, string], TaskSummaryRow>;
  private readonly page: Database.Statement<[PageParams], TaskSummaryRow>;

  constructor(db: Db) {
    // budgets go beyond 2^53 micro-dollars: read as bigints
    this.one = db
      .prepare<[string, string], TaskSummaryRow>(`${TASK_SUMMARY} WHERE t.tenant_id = ? AND t.id = ?`)
      .safeIntegers(true);
    this.page = db
      .prepare<[PageParams], TaskSummaryRow>(
        `${TASK_SUMMARY} WHERE t.tenant_id = @tenant
           AND (@all = 1 OR t.sponsor_id = @viewer OR EXISTS (SELECT 1 FROM task_actors v
             WHERE v.tenant_id = t.tenant_id AND v.task_id = t.id AND v.actor_id = @viewer))
           AND (@status IS NULL OR t.status = @status)
           AND (@after IS NULL OR t.id > @after)
         ORDER BY t.id LIMIT @limit`,
      )
      .safeIntegers(true);
  }

  async list(
    viewer: Actor,
    page: Keyset<string>,
    filter: { status?: TaskStatus },
  ): Promise<KeysetPage<TaskSummary, string>> {
    const rows = this.page.all({
      tenant: viewer.tenantId,
      all: readsWholeTenant(viewer) ? 1 : 0,
      viewer: viewer.id,
      status: filter.status ?? null,
      after: page.after ?? null,
      limit: page.limit + 1,
    });
    return keysetPage(rows, page.limit, toTaskSummary, (t) => t.id);
  }

  async get(viewer: Actor, id: string): Promise<TaskSummary | undefined> {
    const row = this.one.get(viewer.tenantId, id);
    const task = row && toTaskSummary(row);
    return task && readsTask(viewer, task) ? task : undefined;
  }
}
