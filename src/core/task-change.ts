import { SvcError } from './errors.js';
import { checkGuarded } from './guarded-write.js';
import { microsToDecimal, type Micros } from './money.js';
import type { Task, TaskStatus } from './task.js';
import { asker, type UseCase } from './use-case.js';

/**
 * The store operations that change a task, all inside the one transaction that holds the
 * tenant (SQLite's single writer, the PostgreSQL tenant lock). A write the use case decided on
 * a status it read carries that status and answers how many rows it changed: it applies only
 * while the status still holds.
 */
export interface TaskOps {
  task(tenantId: string, id: string): Task | undefined;
  /** insert the task (not its agents) only while its parent, if any, has `parentStatus` */
  insert(task: Task, parentStatus: TaskStatus | null): number;
  /** close the task only while it has `status` */
  close(tenantId: string, id: string, at: string, status: TaskStatus): number;
  /** set the budget only while the task has `status` and no more than `budget` reserved */
  setBudget(tenantId: string, id: string, budget: Micros, status: TaskStatus): number;
  /** add agents to the task; one already assigned stays as it is */
  addActors(tenantId: string, id: string, actorIds: readonly string[]): void;
}

const ask = asker<TaskOps>();

/**
 * A new task. Its parent was checked by the caller; it is checked again here, inside the
 * transaction, because the parent may have closed since.
 */
export function* taskCreation(task: Task): UseCase<TaskOps, void> {
  const parent = task.parentId === null ? null : yield* openTask(task.tenantId, task.parentId, 'parent task');
  checkGuarded(`the insert of task ${task.id}`, yield* ask('insert', task, parent?.status ?? null));
  if (task.actors.length > 0) yield* ask('addActors', task.tenantId, task.id, task.actors);
}

/** Closing is final: a closed task takes no decisions, budget changes, agents or children. */
export function* taskClose(tenantId: string, id: string, at: string): UseCase<TaskOps, Task> {
  const task = yield* openTask(tenantId, id, 'task');
  checkGuarded(`the close of task ${id}`, yield* ask('close', tenantId, id, at, task.status));
  return { ...task, status: 'closed', closedAt: at };
}

/**
 * A new budget for an open task. Decided under the tenant's lock, which every reserving
 * decision takes, and applied only while no more than the new budget is reserved.
 */
export function* budgetChange(tenantId: string, id: string, budget: Micros): UseCase<TaskOps, Task> {
  const task = yield* openTask(tenantId, id, 'task');
  checkBudgetCovers(task, budget);
  checkGuarded(`the budget of task ${id}`, yield* ask('setBudget', tenantId, id, budget, task.status));
  return { ...task, budgetMicros: budget };
}

/** Agents added to an open task (idempotent). */
export function* taskAssignment(
  tenantId: string,
  id: string,
  actorIds: readonly string[],
): UseCase<TaskOps, Task> {
  const task = yield* openTask(tenantId, id, 'task');
  yield* ask('addActors', tenantId, id, actorIds);
  return { ...task, actors: [...new Set([...task.actors, ...actorIds])].sort() };
}

/**
 * A budget is never set below what allowed decisions have already reserved: the refusal
 * names that amount. `svc apply` plans with the same rule before it writes.
 */
export function checkBudgetCovers(task: Pick<Task, 'id' | 'reservedMicros'>, budget: Micros): void {
  if (budget < task.reservedMicros) {
    const reserved = microsToDecimal(task.reservedMicros);
    throw new SvcError(
      'conflict',
      `task ${task.id} already has ${reserved} USD reserved; its budget cannot be set below that`,
      { field: 'set', remedy: `set a budget of at least ${reserved} USD` },
    );
  }
}

/** The task, which must exist and not be closed: closing is final. */
function* openTask(tenantId: string, id: string, what: string): UseCase<TaskOps, Task> {
  const task = yield* ask('task', tenantId, id);
  if (task === undefined) {
    throw new SvcError('not_found', `${what} ${id} does not exist in tenant ${tenantId}`, {
      remedy: `see \`svc task list --tenant ${tenantId}\``,
    });
  }
  if (task.status === 'closed') {
    throw new SvcError('conflict', `${what} ${id} is closed (since ${task.closedAt ?? 'unknown'})`, {
      remedy: 'a closed task is final: create a new task',
    });
  }
  return task;
}
