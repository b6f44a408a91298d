import type { Actor } from '../core/actor.js';
import type { ApprovalRecord, TaskSummary } from './query-ports.js';

/** Journal records of one clock hour (UTC), kind, outcome and refusal code. */
export interface ActivityCount {
  /** `YYYY-MM-DDTHH`: the first 13 characters of the records' occurred_at */
  hour: string;
  kind: string;
  /** the record's outcome; '' when it names none */
  outcome: string;
  /** the record's refusal code; '' when it has none */
  code: string;
  count: number;
}

export interface PendingApprovals {
  /** pending and unexpired approvals the viewer reads */
  count: number;
  /** the oldest of them, oldest first */
  oldest: ApprovalRecord[];
}

/**
 * The bounded reads the console's overview is made of: none scans the journal. Activity is
 * counted as the journal is appended (in the append's transaction), so reading a day of it
 * costs a few hundred rows whatever the journal's size.
 */
export interface OverviewReads {
  /** the tenant's activity from clock hour `sinceHour` (`YYYY-MM-DDTHH`) on, by hour */
  activity(tenantId: string, sinceHour: string): Promise<ActivityCount[]>;
  /** how many approvals wait for a decision, and the oldest `limit`, as `viewer` reads approvals */
  pendingApprovals(viewer: Actor, now: Date, limit: number): Promise<PendingApprovals>;
  /**
   * The tenant's active tasks with the largest share of their budget reserved, at most
   * `limit`; a task with no budget and something reserved counts as spent through. Reads the
   * tenant's tasks, never the journal; tenant-wide, so callers check the viewer reads every task.
   */
  taskBurn(tenantId: string, limit: number): Promise<TaskSummary[]>;
}
