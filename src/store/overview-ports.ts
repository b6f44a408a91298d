import type { Actor } from '../core/actor.js';
import type { ActivityCount } from '../core/activity.js';
import type { ApprovalRecord, TaskSummary } from './query-ports.js';

export type { ActivityCount };

/** How far one tenant's journal runs ahead of its latest signed head. */
export interface TenantBacklog {
  size: number;
  anchoredSize: number;
  /** `linked_at` of the first entry no head covers; null when every entry is covered */
  firstUnanchoredAt: string | null;
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
  /** the tenant's journal size against its latest head: three keyed reads */
  anchorBacklog(tenantId: string): Promise<TenantBacklog>;
}
