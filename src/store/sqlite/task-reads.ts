import type Database from 'better-sqlite3';
import type { Actor } from '../../core/actor.js';
import { readsTask, readsWholeTenant } from '../../core/readers.js';
import type { TaskStatus } from '../../core/task.js';
import type { Keyset, KeysetPage, TaskReads, TaskSummary } from '../query-ports.js';
import type { Db } from './database.js';

export interface TaskSummaryRow {
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
  constrained: bigint;
  /** JSON array of the assigned agents */
  actors: string;
}

export const TASK_SUMMARY = `SELECT t.tenant_id, t.id, t.title, t.sponsor_id, t.status, t.parent_id, t.root_id,
    t.budget_micros, t.reserved_micros, t.created_at, t.closed_at,
    EXISTS (SELECT 1 FROM tasks r WHERE r.tenant_id = t.tenant_id AND r.id = t.root_id
      AND r.constraints IS NOT NULL) AS constrained,
    (SELECT json_group_array(a.actor_id) FROM task_actors a
      WHERE a.tenant_id = t.tenant_id AND a.task_id = t.id) AS actors
  FROM tasks t`;

export function toTaskSummary(r: TaskSummaryRow): TaskSummary {
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
    constraintsInstalled: r.constrained === 1n,
  };
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
    const items = rows.slice(0, page.limit).map(toTaskSummary);
    return { items, next: rows.length > page.limit ? items.at(-1)?.id : undefined };
  }

  async get(viewer: Actor, id: string): Promise<TaskSummary | undefined> {
    const row = this.one.get(viewer.tenantId, id);
    const task = row && toTaskSummary(row);
    return task && readsTask(viewer, task) ? task : undefined;
  }
}
