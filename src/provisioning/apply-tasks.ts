import { SvcError } from '../core/errors.js';
import { checkSlug } from '../core/ids.js';
import { checkBudgetCovers } from '../core/task-change.js';
import type { Task } from '../core/task.js';
import type { Store } from '../store/ports.js';
import type { Step } from './apply-step.js';
import { parseAmount } from './amount.js';
import type { Deployment, DeploymentDocument } from './deployment-document.js';
import { checkActorsOfKind, checkText, type ActorLookup } from './references.js';
import { prepareTask, type TaskLookup } from './task.js';

type TaskEntry = NonNullable<Deployment['tasks']>[number];

/**
 * Tasks are created with their parents first. A task that exists keeps its sponsor, parent
 * and title; the document may raise or lower its budget and add agents to it. Its status
 * is the store's: `draft` only applies at creation, since a draft root is activated by its
 * execution constraints and a closed task stays closed.
 */
export async function planTasks(
  store: Store,
  doc: DeploymentDocument,
  actors: ActorLookup,
  at: string,
): Promise<Step[]> {
  const tenantId = doc.content.tenant;
  const entries = doc.content.tasks ?? [];
  const index = new Map<string, number>();
  for (const [i, t] of entries.entries()) {
    try {
      checkSlug('id', t.id);
    } catch (err) {
      throw doc.failIn('tasks', i, err);
    }
    if (index.has(t.id)) {
      throw doc.fail(['tasks', i, 'id'], new SvcError('invalid_request', `task ${t.id} is listed twice`));
    }
    index.set(t.id, i);
  }
  const planned = new Map<string, Pick<Task, 'status' | 'rootId'>>();
  const tasks: TaskLookup = async (id) => planned.get(id) ?? (await store.tasks.get(tenantId, id));
  const steps: Step[] = [];
  const visiting = new Set<string>();

  const visit = async (i: number): Promise<void> => {
    const t = entries[i] as TaskEntry;
    if (planned.has(t.id)) return;
    if (visiting.has(t.id)) {
      throw doc.fail(
        ['tasks', i, 'parent'],
        new SvcError('invalid_request', `the parent chain of task ${t.id} leads back to itself`),
      );
    }
    visiting.add(t.id);
    const parent = t.parent === undefined ? undefined : index.get(t.parent);
    if (parent !== undefined) await visit(parent);
    const stored = await store.tasks.get(tenantId, t.id);
    const budgetUsd = doc.amount(['tasks', i, 'budget_usd'], t.budget_usd);
    if (stored === undefined) {
      let task: Task;
      try {
        task = await prepareTask(
          {
            tenantId,
            id: t.id,
            sponsorId: t.sponsor,
            budgetUsd,
            draft: t.draft ?? false,
            actors: t.actors ?? [],
            ...(t.title !== undefined ? { title: t.title } : {}),
            ...(t.parent !== undefined ? { parentId: t.parent } : {}),
          },
          { actors, tasks },
          at,
        );
      } catch (err) {
        throw doc.failIn('tasks', i, err);
      }
      planned.set(task.id, task);
      steps.push({
        change: { kind: 'task', id: task.id, result: 'created' },
        write: () => store.tasks.create(task),
      });
    } else {
      planned.set(stored.id, stored);
      steps.push(await planExisting(store, doc, i, t, stored, budgetUsd, actors));
    }
    visiting.delete(t.id);
  };
  for (const i of entries.keys()) await visit(i);
  return steps;
}

async function planExisting(
  store: Store,
  doc: DeploymentDocument,
  i: number,
  t: TaskEntry,
  stored: Task,
  budgetUsd: string | number,
  lookup: ActorLookup,
): Promise<Step> {
  const { tenantId, id } = stored;
  let budget: bigint;
  let agents: string[];
  try {
    budget = parseAmount('budget-usd', budgetUsd);
    checkText('title', t.title);
    agents = await checkActorsOfKind('actor', t.actors ?? [], 'agent', lookup, tenantId);
  } catch (err) {
    throw doc.failIn('tasks', i, err);
  }
  const fixed: [string, string | null | undefined, string | null][] = [
    ['sponsor', t.sponsor, stored.sponsorId],
    ['parent', t.parent ?? null, stored.parentId],
    ['title', t.title, stored.title],
  ];
  for (const [key, wanted, has] of fixed) {
    if (wanted !== undefined && wanted !== has) {
      throw doc.fail(
        ['tasks', i, key],
        new SvcError(
          'conflict',
          `task ${id} exists with ${key} ${has ?? '(none)'}; svc apply does not change it`,
          {
            remedy: `state the task's ${key} as it is, or give this task a new id`,
          },
        ),
      );
    }
  }
  const added = agents.filter((a) => !stored.actors.includes(a));
  const changed = [
    ...(budget !== stored.budgetMicros ? ['budget_usd'] : []),
    ...(added.length > 0 ? ['actors'] : []),
  ];
  if (changed.length === 0) return { change: { kind: 'task', id, result: 'unchanged' } };
  const conflict = (reason: string, remedy: string) =>
    doc.fail(['tasks', i, changed[0] as string], new SvcError('conflict', reason, { remedy }));
  if (stored.status === 'closed') {
    throw conflict(
      `task ${id} is closed; a closed task is final`,
      'leave its entry as it was closed, or remove it',
    );
  }
  try {
    checkBudgetCovers(stored, budget);
  } catch (err) {
    throw doc.fail(['tasks', i, changed[0] as string], err);
  }
  return {
    change: { kind: 'task', id, result: 'updated', changed },
    write: async () => {
      if (budget !== stored.budgetMicros) await store.tasks.setBudget(tenantId, id, budget);
      if (added.length > 0) await store.tasks.assign(tenantId, id, added);
    },
  };
}
