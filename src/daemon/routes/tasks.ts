import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import { TASK_STATUSES } from '../../core/task.js';
import type { DaemonDeps } from '../deps.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { decodeCursor, PageQuery, pageOf, wirePage } from '../../api/page.js';
import { TaskView } from '../../api/task.js';
import { taskView } from '../../api/task-view.js';

export const IdParams = z.strictObject({ id: z.string().min(1).max(200) });
const TaskQuery = PageQuery.extend({
  status: z.enum(TASK_STATUSES).optional().describe('only tasks in this status'),
});
const SCOPE = 'tasks';

const notFound = () => new SvcError('not_found', 'no such task');

/**
 * `GET /v1/task` and `GET /v1/task/{id}`, and the earlier variant's `/v1/work` names as
 * deprecated aliases with the same answers. Readers: the sponsor, the agents assigned to
 * the task, and humans with the operator, administrator or auditor role.
 */
export function taskRoutes(deps: DaemonDeps): AnyRoute[] {
  const list = (base: '/v1/task' | '/v1/work') =>
    defineRoute({
      method: 'GET',
      url: base,
      ...(base === '/v1/task' ? { operationId: 'tasks' } : {}),
      summary:
        base === '/v1/task'
          ? 'list the tasks the caller may read; paged'
          : 'deprecated alias of GET /v1/task',
      tag: 'Task',
      auth: 'token',
      deprecated: base === '/v1/work',
      query: TaskQuery,
      responses: { 200: { description: 'a page of tasks, ordered by id', schema: pageOf(TaskView) } },
      handler: async ({ caller, query, reply }) => {
        if (base === '/v1/work') deprecate(reply, '/v1/task');
        const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, z.string(), SCOPE);
        const page = await deps.store.taskReads.list(
          caller.actor,
          { limit: query.limit, after },
          query.status !== undefined ? { status: query.status } : {},
        );
        return wirePage({ items: page.items.map(taskView), next: page.next }, SCOPE);
      },
    });
  const get = (base: '/v1/task' | '/v1/work') =>
    defineRoute({
      method: 'GET',
      url: `${base}/:id`,
      ...(base === '/v1/task' ? { operationId: 'task' } : {}),
      summary: base === '/v1/task' ? 'read a task' : 'deprecated alias of GET /v1/task/{id}',
      tag: 'Task',
      auth: 'token',
      deprecated: base === '/v1/work',
      params: IdParams,
      responses: {
        200: { description: 'the task', schema: TaskView },
        404: {
          description: 'no such task in this tenant, or not one the caller may read',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ caller, params, reply }) => {
        if (base === '/v1/work') deprecate(reply, `/v1/task/${encodeURIComponent(params.id)}`);
        const task = await deps.store.taskReads.get(caller.actor, params.id);
        if (!task) throw notFound();
        return taskView(task);
      },
    });
  return [list('/v1/task'), get('/v1/task'), list('/v1/work'), get('/v1/work')];
}

/** Names the successor (RFC 5829), so a client of the earlier variant can find the new route. */
function deprecate(reply: { header(name: string, value: string): unknown }, successor: string): void {
  reply.header('link', `<${successor}>; rel="successor-version"`);
}
