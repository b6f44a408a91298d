import type { Actor } from '../../core/actor.js';
import type { ExecutionPlan } from '../../core/constraints.js';
import { SvcError } from '../../core/errors.js';
import type { AdmissionLedger, ConstraintProfile, TaskSummary } from '../query-ports.js';
import { micros, type DbInt } from './numbers.js';

/** The root task's constraint columns. */
export interface RootRow {
  id: string;
  sponsor_id: string;
  constraints: string | null;
  constraints_installed_at: string | null;
  constraints_installed_by: string | null;
}

/** An admissions row as both drivers return it. */
export interface AdmissionRow {
  id: string;
  root_id: string;
  task_id: string;
  intent_id: string;
  actor_id: string;
  capability: string;
  amount_micros: DbInt;
  created_at: string;
}

export const notFound = (): SvcError => new SvcError('not_found', 'no such task');

/** Refuses installing a plan unless by the human sponsor, on an unused draft root with none yet. */
export function checkInstallable(installer: Actor, task: TaskSummary): void {
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

/** The refusals that depend on the root's row and its admissions, in the order they are judged. */
export function checkRootUnused(task: TaskSummary, root: RootRow, used: boolean): void {
  if (root.constraints !== null) {
    throw new SvcError(
      'conflict',
      `the execution constraints of task ${task.id} were installed at ${root.constraints_installed_at} by ${root.constraints_installed_by} and can never be changed`,
      { code: 'constraints_installed', remedy: 'start a new root task with its own plan' },
    );
  }
  if (task.status !== 'draft') {
    throw new SvcError('conflict', `task ${task.id} is ${task.status}; plans are installed on draft tasks`, {
      code: 'task_not_draft',
      remedy: 'start a new root task with its own plan',
    });
  }
  if (used) {
    throw new SvcError(
      'conflict',
      `task ${task.id} already has admissions; plans are installed on unused tasks`,
      {
        code: 'task_used',
        remedy: 'start a new root task with its own plan',
      },
    );
  }
}

export function fullLedger(rows: AdmissionRow[]): AdmissionLedger {
  const admissions = rows.map((r) => ({
    id: r.id,
    rootId: r.root_id,
    taskId: r.task_id,
    intentId: r.intent_id,
    actorId: r.actor_id,
    capability: r.capability,
    amountMicros: micros(r.amount_micros),
    createdAt: r.created_at,
  }));
  const totalMicros = admissions.reduce((sum, a) => sum + a.amountMicros, 0n);
  return { visibility: 'full', admissions, count: admissions.length, totalMicros };
}

export const constraintProfile = (
  taskId: string,
  root: RootRow,
  ledger: AdmissionLedger,
): ConstraintProfile => ({
  taskId,
  rootId: root.id,
  rootSponsorId: root.sponsor_id,
  plan: root.constraints === null ? null : (JSON.parse(root.constraints) as ExecutionPlan),
  installedAt: root.constraints_installed_at,
  installedBy: root.constraints_installed_by,
  ledger,
});
