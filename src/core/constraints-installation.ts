import type { Actor } from './actor.js';
import type { ExecutionPlan } from './constraints.js';
import { SvcError } from './errors.js';
import { checkGuarded } from './guarded-write.js';
import { readsTask } from './readers.js';
import type { Task } from './task.js';
import { asker, type UseCase } from './use-case.js';

/** The root's plan as stored, and whether its tree has admissions yet. */
export interface RootPlanState {
  installed: boolean;
  installedAt: string | null;
  installedBy: string | null;
  used: boolean;
}

/** The names a plan binds, as far as they are registered in the tenant. */
export interface RegisteredNames {
  capabilities: string[];
  actors: string[];
}

/** The store operations of installing a plan, inside one transaction under the tenant's writer. */
export interface ConstraintsInstallationOps {
  task(tenantId: string, id: string): Task | undefined;
  rootState(tenantId: string, rootId: string): RootPlanState;
  /** those of the given capability names and actor ids that are registered */
  registered(tenantId: string, capabilities: string[], actors: string[]): RegisteredNames;
  /**
   * Store the plan and activate the task where it is still a draft root without a plan;
   * answers the rows changed.
   */
  installPlan(tenantId: string, taskId: string, plan: string, at: string, by: string): number;
}

const ask = asker<ConstraintsInstallationOps>();

const NEW_ROOT = 'start a new root task with its own plan';

/** Refuses installing a plan unless by the human sponsor, on a root. */
function checkInstallable(installer: Actor, task: Task): void {
  if (task.sponsorId !== installer.id || installer.kind !== 'human') {
    throw new SvcError(
      'forbidden',
      `only the registered human sponsor of task ${task.id} (${task.sponsorId}) installs its execution constraints`,
      { code: 'not_sponsor', remedy: `ask ${task.sponsorId} to install the plan` },
    );
  }
  if (task.parentId !== null) {
    throw new SvcError(
      'conflict',
      `task ${task.id} is not a root; execution constraints are set on its root`,
      {
        code: 'not_root',
        remedy: `install the plan on the root task ${task.rootId}`,
      },
    );
  }
}

/** The refusals that depend on the root's plan and its admissions, in the order they are judged. */
function checkRootUnused(task: Task, root: RootPlanState): void {
  if (root.installed) {
    throw new SvcError(
      'conflict',
      `the execution constraints of task ${task.id} were installed at ${root.installedAt} by ${root.installedBy} and can never be changed`,
      { code: 'constraints_installed', remedy: NEW_ROOT },
    );
  }
  if (task.status !== 'draft') {
    throw new SvcError('conflict', `task ${task.id} is ${task.status}; plans are installed on draft tasks`, {
      code: 'task_not_draft',
      remedy: NEW_ROOT,
    });
  }
  if (root.used) {
    throw new SvcError(
      'conflict',
      `task ${task.id} already has admissions; plans are installed on unused tasks`,
      {
        code: 'task_used',
        remedy: NEW_ROOT,
      },
    );
  }
}

/** A plan that names an unknown capability or actor is a typo, not a bound. */
function checkRegistered(plan: ExecutionPlan, known: RegisteredNames): void {
  for (const [field, names, registered] of [
    ['capabilities', plan.capabilities, known.capabilities],
    ['actors', plan.actors, known.actors],
  ] as const) {
    (names ?? []).forEach((name, i) => {
      if (!registered.includes(name)) {
        throw new SvcError('invalid_request', `${field}.${i}: ${name} is not registered in this tenant`, {
          field: `${field}.${i}`,
        });
      }
    });
  }
}

/**
 * Install the immutable plan on an unused draft root and activate it (semantics.md, Tasks
 * and execution constraints): only by its registered human sponsor, once, before any
 * admission. The plan was validated against the closed schema by the caller.
 */
export function* constraintsInstallation(
  installer: Actor,
  taskId: string,
  plan: ExecutionPlan,
  at: Date,
): UseCase<ConstraintsInstallationOps, void> {
  const tenantId = installer.tenantId;
  const task = yield* ask('task', tenantId, taskId);
  if (!task || !readsTask(installer, task)) throw new SvcError('not_found', 'no such task');
  checkInstallable(installer, task);
  checkRootUnused(task, yield* ask('rootState', tenantId, task.id));
  const capabilities = plan.capabilities ?? [];
  const actors = plan.actors ?? [];
  if (capabilities.length > 0 || actors.length > 0) {
    checkRegistered(plan, yield* ask('registered', tenantId, capabilities, actors));
  }
  checkGuarded(
    'the execution plan installation',
    yield* ask('installPlan', tenantId, task.id, JSON.stringify(plan), at.toISOString(), installer.id),
  );
}
