import type { Actor } from '../../core/actor.js';
import { readsTask, readsWholeTenant } from '../../core/readers.js';
import type { TaskStatus } from '../../core/task.js';
import type { Keyset, KeysetPage, TaskReads, TaskSummary } from '../query-ports.js';
import { keysetPage } from '../rows/keyset.js';
import type { PgDb } from './database.js';
import { TASK_SUMMARY, toTask, type PgTaskSummaryRow } from './registry-rows.js';

export function toTaskSummary(r: PgTaskSummaryRow): TaskSummary {
  return { ...toTask(r), constraintsInstalled: r.constrained };
}

export const TASK_SUMMARY_ONE = `${TASK_SUMMARY} WHERE t.tenant_id = $1 AND t.id = $2`;

export class PgTaskReads implements TaskReads {
  constructor(private readonly db: PgDb) {}

  async list(
    viewer: Actor,
    page: Keyset<string>,
    filter: { status?: TaskStatus },
  ): Promise<KeysetPage<TaskSummary, string>> {
    const rows = await this.db.query<PgTaskSummaryRow>(
      `${TASK_SUMMARY} WHERE t.tenant_id = $1
         AND ($2 OR t.sponsor_id = $3 OR EXISTS (SELECT 1 FROM task_actors v
           WHERE v.tenant_id = t.tenant_id AND v.task_id = t.id AND v.actor_id = $3))
         AND ($4::text IS NULL OR t.status = $4)
         AND ($5::text IS NULL OR t.id COLLATE "C" > $5)
       ORDER BY t.id COLLATE "C" LIMIT $6`,
      [
        viewer.tenantId,
        readsWholeTenant(viewer),
        viewer.id,
        filter.status ?? null,
        page.after ?? null,
        page.limit + 1,
      ],
    );
    return keysetPage(rows, page.limit, toTaskSummary, (t) => t.id);
  }

  async get(viewer: Actor, id: string): Promise<TaskSummary | undefined> {
    const [row] = await this.db.query<PgTaskSummaryRow>(TASK_SUMMARY_ONE, [viewer.tenantId, id]);
    const task = row && toTaskSummary(row);
    return task && readsTask(viewer, task) ? task : undefined;
  }
}
