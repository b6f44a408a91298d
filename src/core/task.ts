import type { Micros } from './money.js';

export const TASK_STATUSES = ['draft', 'active', 'closed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface Task {
  tenantId: string;
  id: string;
  title: string | null;
  /** the registered human accountable for the task */
  sponsorId: string;
  status: TaskStatus;
  parentId: string | null;
  /** the top of the task's tree (itself for a root) */
  rootId: string;
  budgetMicros: Micros;
  /** reserved by allowed decisions: never above the budget */
  reservedMicros: Micros;
  /** agents assigned to the task */
  actors: string[];
  createdAt: string;
  closedAt: string | null;
}
