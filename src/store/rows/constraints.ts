import type { ExecutionPlan } from '../../core/constraints.js';
import type { RootPlanState } from '../../core/constraints-installation.js';
import type { AdmissionLedger, ConstraintProfile } from '../query-ports.js';
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

/** The root's plan columns and whether its tree has admissions, as both drivers return them. */
export interface RootStateRow extends Omit<RootRow, 'id' | 'sponsor_id'> {
  /** EXISTS: 0 or 1 from SQLite, a boolean from PostgreSQL */
  used: number | boolean;
}

export const toRootPlanState = (r: RootStateRow): RootPlanState => ({
  installed: r.constraints !== null,
  installedAt: r.constraints_installed_at,
  installedBy: r.constraints_installed_by,
  used: r.used === true || r.used === 1,
});

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
