import type { Capability, Custody } from '../../core/capability.js';
import type { Task } from '../../core/task.js';
import { taskOf, type TaskColumns } from '../rows/task.js';

/**
 * Rows of the registry tables as node-postgres returns them: BIGINT arrives as a decimal
 * string (micros go beyond 2^53), the task's agents as a text[] array.
 */
export interface PgCapabilityRow {
  tenant_id: string;
  name: string;
  tier: string;
  irreversible: number;
  custody: Custody;
  actions: string;
  cost_micros: string;
  requestable: number;
  approvers: string;
  owners: string;
  surface_id: string | null;
  operation: string | null;
  created_at: string;
  updated_at: string;
}

export function toCapability(r: PgCapabilityRow): Capability {
  return {
    tenantId: r.tenant_id,
    name: r.name,
    tier: Number(r.tier),
    irreversible: Number(r.irreversible) === 1,
    custody: r.custody,
    actions: JSON.parse(r.actions) as string[],
    costMicros: BigInt(r.cost_micros),
    requestable: Number(r.requestable) === 1,
    approvers: JSON.parse(r.approvers) as string[],
    owners: JSON.parse(r.owners) as string[],
    surfaceId: r.surface_id,
    operation: r.operation,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export interface PgTaskRow extends TaskColumns {
  budget_micros: string;
  reserved_micros: string;
  actors: string[];
}

/** Task columns with the assigned agents as an array, for a query over `tasks t`. */
export const TASK_COLUMNS = `t.tenant_id, t.id, t.title, t.sponsor_id, t.status, t.parent_id, t.root_id,
    t.budget_micros, t.reserved_micros, t.created_at, t.closed_at,
    ARRAY(SELECT a.actor_id FROM task_actors a WHERE a.tenant_id = t.tenant_id AND a.task_id = t.id) AS actors`;
export const TASK_SELECT = `SELECT ${TASK_COLUMNS} FROM tasks t`;

export function toTask(r: PgTaskRow): Task {
  return taskOf(r, r.actors);
}

/** A task with whether its root carries execution constraints. */
export const TASK_SUMMARY = `SELECT ${TASK_COLUMNS},
    EXISTS (SELECT 1 FROM tasks r WHERE r.tenant_id = t.tenant_id AND r.id = t.root_id
      AND r.constraints IS NOT NULL) AS constrained
  FROM tasks t`;

export interface PgTaskSummaryRow extends PgTaskRow {
  constrained: boolean;
}
