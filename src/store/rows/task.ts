import type { Task, TaskStatus } from '../../core/task.js';
import { micros, type DbInt } from './numbers.js';

/** A tasks row as both drivers return it, but for its agents (each driver has its own aggregate). */
export interface TaskColumns {
  tenant_id: string;
  id: string;
  title: string | null;
  sponsor_id: string;
  status: TaskStatus;
  parent_id: string | null;
  root_id: string;
  budget_micros: DbInt;
  reserved_micros: DbInt;
  created_at: string;
  closed_at: string | null;
}

/** The task of a row and its agents, listed in JavaScript's code-unit order on both adapters. */
export function taskOf(r: TaskColumns, actors: readonly string[]): Task {
  return {
    tenantId: r.tenant_id,
    id: r.id,
    title: r.title,
    sponsorId: r.sponsor_id,
    status: r.status,
    parentId: r.parent_id,
    rootId: r.root_id,
    budgetMicros: micros(r.budget_micros),
    reservedMicros: micros(r.reserved_micros),
    actors: [...actors].sort(),
    createdAt: r.created_at,
    closedAt: r.closed_at,
  };
}
