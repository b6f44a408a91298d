import { SvcError, invalidField } from '../core/errors.js';
import { checkSlug, newId } from '../core/ids.js';
import { formatUsd } from '../core/money.js';
import type { Task, TaskStatus } from '../core/task.js';
import type { Store } from '../store/ports.js';
import { parseAmount } from './amount.js';
import { checkActorsOfKind, checkText, requireTenant, storeActors, type ActorLookup } from './references.js';

/** A task as the CLI flags and the deployment document give it; fields named by flag. */
export interface TaskInput {
  tenantId: string;
  /** else a generated `task_<hex>` id */
  id?: string;
  title?: string;
  sponsorId: string;
  budgetUsd: string | number;
  draft?: boolean;
  parentId?: string;
  /** agents assigned to the task */
  actors?: readonly string[];
}

/** The stable `--json` shape of a task; amounts are JSON numbers of USD. */
export interface TaskView {
  tenant_id: string;
  task_id: string;
  title: string | null;
  sponsor: string;
  status: TaskStatus;
  parent_id: string | null;
  root_id: string;
  budget_usd: number;
  reserved_usd: number;
  actors: string[];
  created_at: string;
  closed_at: string | null;
}

/** Where a new task looks up its parent: the store, or for `svc apply` the document first. */
export type TaskLookup = (id: string) => Promise<Pick<Task, 'status' | 'rootId'> | undefined>;

export const MAX_PAGE = 200;

export function taskView(t: Task): TaskView {
  return {
    tenant_id: t.tenantId,
    task_id: t.id,
    title: t.title,
    sponsor: t.sponsorId,
    status: t.status,
    parent_id: t.parentId,
    root_id: t.rootId,
    budget_usd: formatUsd(t.budgetMicros),
    reserved_usd: formatUsd(t.reservedMicros),
    actors: t.actors,
    created_at: t.createdAt,
    closed_at: t.closedAt,
  };
}

/**
 * Validate a new task: its sponsor is a registered human, its agents registered agents,
 * its parent an open task of the tenant (the child joins the parent's tree).
 */
export async function prepareTask(
  input: TaskInput,
  lookup: { actors: ActorLookup; tasks: TaskLookup },
  at: string,
): Promise<Task> {
  const id = input.id === undefined ? newId('task') : checkSlug('id', input.id);
  const title = checkText('title', input.title);
  const budgetMicros = parseAmount('budget-usd', input.budgetUsd);
  const [sponsorId] = await checkActorsOfKind(
    'sponsor',
    [input.sponsorId],
    'human',
    lookup.actors,
    input.tenantId,
  );
  const actors = await checkActorsOfKind('actor', input.actors ?? [], 'agent', lookup.actors, input.tenantId);
  let rootId = id;
  const parentId = input.parentId ?? null;
  if (parentId !== null) {
    checkSlug('parent', parentId);
    if (parentId === id) throw invalidField('parent', 'another task than the task itself');
    const parent = await lookup.tasks(parentId);
    if (parent === undefined) {
      throw new SvcError(
        'invalid_request',
        `parent: task ${parentId} does not exist in tenant ${input.tenantId}`,
        {
          field: 'parent',
          remedy: `see \`svc task list --tenant ${input.tenantId}\``,
        },
      );
    }
    if (parent.status === 'closed') {
      throw new SvcError('conflict', `parent: task ${parentId} is closed and takes no new children`, {
        field: 'parent',
        remedy: 'a closed task is final: create the task under an open one, or as a new root',
      });
    }
    rootId = parent.rootId;
  }
  return {
    tenantId: input.tenantId,
    id,
    title,
    sponsorId: sponsorId as string,
    status: input.draft === true ? 'draft' : 'active',
    parentId,
    rootId,
    budgetMicros,
    reservedMicros: 0n,
    actors,
    createdAt: at,
    closedAt: null,
  };
}

export async function createTask(store: Store, input: TaskInput, now: Date): Promise<TaskView> {
  await requireTenant(store, input.tenantId);
  if (input.id !== undefined && (await store.tasks.get(input.tenantId, checkSlug('id', input.id)))) {
    throw new SvcError('already_exists', `task ${input.id} already exists in tenant ${input.tenantId}`, {
      remedy: `see \`svc task show --tenant ${input.tenantId} --id ${input.id}\`, or omit --id for a generated one`,
    });
  }
  const task = await prepareTask(
    input,
    { actors: storeActors(store, input.tenantId), tasks: (id) => store.tasks.get(input.tenantId, id) },
    now.toISOString(),
  );
  await store.tasks.create(task);
  return taskView(task);
}

export async function showTask(store: Store, tenantId: string, id: string): Promise<TaskView> {
  await requireTenant(store, tenantId);
  const task = await store.tasks.get(tenantId, checkSlug('id', id));
  if (task === undefined) {
    throw new SvcError('not_found', `task ${id} does not exist in tenant ${tenantId}`, {
      remedy: `see \`svc task list --tenant ${tenantId}\``,
    });
  }
  return taskView(task);
}

/** One page ordered by id; `next_cursor` is null on the last page. */
export async function listTasks(
  store: Store,
  opts: { tenantId: string; limit: number; cursor?: string },
): Promise<{ items: TaskView[]; next_cursor: string | null }> {
  if (!Number.isInteger(opts.limit) || opts.limit < 1 || opts.limit > MAX_PAGE) {
    throw invalidField('limit', `an integer from 1 to ${MAX_PAGE}`);
  }
  await requireTenant(store, opts.tenantId);
  // The cursor is the last task id of the previous page.
  const after = opts.cursor === undefined ? {} : { after: checkSlug('cursor', opts.cursor) };
  const rows = await store.tasks.list(opts.tenantId, { limit: opts.limit + 1, ...after });
  const page = rows.slice(0, opts.limit);
  return {
    items: page.map(taskView),
    next_cursor: rows.length > opts.limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}

/** Closing is final: a closed task takes no decisions, budget changes or children. */
export async function closeTask(
  store: Store,
  opts: { tenantId: string; id: string; now: Date },
): Promise<TaskView> {
  await requireTenant(store, opts.tenantId);
  return taskView(await store.tasks.close(opts.tenantId, checkSlug('id', opts.id), opts.now.toISOString()));
}

/** Refused below what allowed decisions have already reserved, naming that amount. */
export async function setTaskBudget(
  store: Store,
  /** `field` names the amount in a refusal: the CLI's flag (`set`), or the console's field */
  opts: { tenantId: string; id: string; budgetUsd: string | number; field?: string },
): Promise<TaskView & { previous_budget_usd: number }> {
  await requireTenant(store, opts.tenantId);
  const budget = parseAmount(opts.field ?? 'set', opts.budgetUsd);
  const before = await showTask(store, opts.tenantId, opts.id);
  const task = await store.tasks.setBudget(opts.tenantId, opts.id, budget);
  return { ...taskView(task), previous_budget_usd: before.budget_usd };
}
