import type { Actor } from '../../core/actor.js';
import { readsAllApprovals } from '../../core/approval.js';
import type { TaskSummary } from '../query-ports.js';
import type { ActivityCount, OverviewReads, PendingApprovals, TenantBacklog } from '../overview-ports.js';
import { toApprovalRecord, type ApprovalRow } from '../rows/approval.js';
import { APPROVAL_SELECT } from './approvals.js';
import type { PgDb } from './database.js';
import { TASK_SUMMARY, type PgTaskSummaryRow } from './registry-rows.js';
import { toTaskSummary } from './task-reads.js';

// As SQLite's overview.ts: `readsApproval` ($2 is `readsAllApprovals`), pending and unexpired.
const OPEN = `a.tenant_id = $1 AND a.status = 'pending' AND a.expires_at > $4
  AND ($2 OR a.requester_id = $3 OR EXISTS (SELECT 1 FROM json_array_elements_text(c.approvers::json) n
    WHERE n = $3))`;

const BURN_ORDER = `CASE WHEN t.budget_micros = 0 THEN (CASE WHEN t.reserved_micros > 0 THEN 1.0 ELSE 0.0 END)
  ELSE t.reserved_micros::float8 / t.budget_micros END DESC, t.id`;

export class PgOverview implements OverviewReads {
  constructor(private readonly db: PgDb) {}

  async activity(tenantId: string, sinceHour: string): Promise<ActivityCount[]> {
    const rows = await this.db.query<Omit<ActivityCount, 'count'> & { n: string }>(
      `SELECT hour, kind, outcome, code, n FROM journal_activity
       WHERE tenant_id = $1 AND hour >= $2 ORDER BY hour, kind, outcome, code`,
      [tenantId, sinceHour],
    );
    return rows.map((r) => ({
      hour: r.hour,
      kind: r.kind,
      outcome: r.outcome,
      code: r.code,
      count: Number(r.n),
    }));
  }

  async pendingApprovals(viewer: Actor, now: Date, limit: number): Promise<PendingApprovals> {
    const params = [viewer.tenantId, readsAllApprovals(viewer), viewer.id, now.toISOString()];
    const from =
      'FROM approvals a LEFT JOIN capabilities c ON c.tenant_id = a.tenant_id AND c.name = a.capability';
    const [count] = await this.db.query<{ n: string }>(`SELECT count(*) AS n ${from} WHERE ${OPEN}`, params);
    const rows = await this.db.query<ApprovalRow>(
      `${APPROVAL_SELECT} WHERE ${OPEN} ORDER BY a.created_at, a.id LIMIT $5`,
      [...params, limit],
    );
    return { count: Number(count?.n ?? 0), oldest: rows.map((r) => toApprovalRecord(r, now)) };
  }

  async taskBurn(tenantId: string, limit: number): Promise<TaskSummary[]> {
    const rows = await this.db.query<PgTaskSummaryRow>(
      `${TASK_SUMMARY} WHERE t.tenant_id = $1 AND t.status = 'active' ORDER BY ${BURN_ORDER} LIMIT $2`,
      [tenantId, limit],
    );
    return rows.map(toTaskSummary);
  }

  async anchorBacklog(tenantId: string): Promise<TenantBacklog> {
    const [r] = await this.db.query<{
      size: string | null;
      anchored: string;
      first_unanchored: string | null;
    }>(
      `SELECT s.size, x.anchored,
         (SELECT j.linked_at FROM journal j WHERE j.tenant_id = $1 AND j.sequence = x.anchored + 1) AS first_unanchored
       FROM (SELECT COALESCE(MAX(a.tree_size), 0) AS anchored FROM anchors a WHERE a.tenant_id = $1) x
       LEFT JOIN journal_state s ON s.tenant_id = $1`,
      [tenantId],
    );
    const size = Number(r?.size ?? 0);
    const anchoredSize = Number(r?.anchored ?? 0);
    return {
      size,
      anchoredSize,
      firstUnanchoredAt: size > anchoredSize ? (r?.first_unanchored ?? null) : null,
    };
  }
}
