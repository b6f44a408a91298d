import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { pageLimit } from '../../api/page.js';
import { taskView } from '../../api/task-view.js';
import { TaskView } from '../../api/task.js';
import type { ConsoleDeps } from '../deps.js';

const SpendQuery = z.strictObject({
  status: z.enum(['draft', 'active', 'closed']).optional(),
  limit: pageLimit(200),
  cursor: z.string().max(100).optional().describe('next_cursor of the previous page (a task id)'),
});

/** Per task: budget, reserved and remaining, for the tasks the signed-in human may read. */
export function spendRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/spend',
      summary: 'per-task budget, reserved and remaining (USD), tasks by id',
      tag: 'Console spend',
      auth: 'token',
      query: SpendQuery,
      responses: {
        200: {
          description: 'tasks with their budgets',
          schema: z.object({ items: z.array(TaskView), next_cursor: z.string().nullable() }),
        },
      },
      handler: async ({ caller, query }) => {
        const page = await deps.store.taskReads.list(
          caller.actor,
          { limit: query.limit, after: query.cursor },
          query.status !== undefined ? { status: query.status } : {},
        );
        return { items: page.items.map(taskView), next_cursor: page.next ?? null };
      },
    }),
  ];
}
