import type { Actor } from '../../core/actor.js';
import { readsAllApprovals } from '../../core/approval.js';
import type { TaskSummary } from '../query-ports.js';
import type { ActivityCount, OverviewReads, PendingApprovals, TenantBacklog } from '../overview-ports.js';
import type { ApprovalRow } from '../rows/approval.js';
import { toApprovalRecord } from '../rows/approval.js';
import { APPROVAL_SELECT } from './approvals.js';
import type { Db } from './database.js';
import { TASK_SUMMARY, toTaskSummary, type TaskSummaryRow } from './task-reads.js';

// Who reads an approval: core/approval.ts `readsApproval`, as in approvals.ts. Pending and
// unexpired only, so the partial index of open approvals serves it.
const OPEN = `a.tenant_id = @tenant AND a.status = 'pending' AND a.expires_at > @now
  AND (@all = 1 OR a.requester_id = @viewer OR EXISTS (SELECT 1 FROM json_each(c.approvers) n
    WHERE n.value = @viewer))`;

// The share of the budget reserved; a task with no budget is spent through once anything is reserved.
const BURN_ORDER = `CASE WHEN t.budget_micros = 0 THEN (CASE WHEN t.reserved_micros > 0 THEN 1.0 ELSE 0.0 END)
  ELSE t.reserved_micros * 1.0 / t.budget_micros END DESC, t.id`;

interface OpenParams {
  tenant: string;
  all: number;
  viewer: string;
  now: string;
}

export class SqliteOverview implements OverviewReads {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      activity: db.prepare<[string, string], ActivityCount & { n: bigint }>(
        `SELECT hour, kind, outcome, code, n FROM journal_activity
         WHERE tenant_id = ? AND hour >= ? ORDER BY hour, kind, outcome, code`,
      ),
      openCount: db
        .prepare<[OpenParams], number>(
          `SELECT count(*) FROM approvals a LEFT JOIN capabilities c
             ON c.tenant_id = a.tenant_id AND c.name = a.capability WHERE ${OPEN}`,
        )
        .pluck(),
      oldest: db
        .prepare<[OpenParams & { limit: number }], ApprovalRow>(
          `${APPROVAL_SELECT} WHERE ${OPEN} ORDER BY a.created_at, a.id LIMIT @limit`,
        )
        .safeIntegers(true),
      size: db.prepare<[string], number>('SELECT size FROM journal_state WHERE tenant_id = ?').pluck(),
      anchored: db
        .prepare<[string], number | null>('SELECT MAX(tree_size) FROM anchors WHERE tenant_id = ?')
        .pluck(),
      linkedAt: db
        .prepare<[string, number], string>(
          'SELECT linked_at FROM journal WHERE tenant_id = ? AND sequence = ?',
        )
        .pluck(),
      burn: db
        .prepare<[string, number], TaskSummaryRow>(
          `${TASK_SUMMARY} WHERE t.tenant_id = ? AND t.status = 'active' ORDER BY ${BURN_ORDER} LIMIT ?`,
        )
        .safeIntegers(true),
    };
  }

  async activity(tenantId: string, sinceHour: string): Promise<ActivityCount[]> {
    return this.q.activity
      .all(tenantId, sinceHour)
      .map((r) => ({ hour: r.hour, kind: r.kind, outcome: r.outcome, code: r.code, count: Number(r.n) }));
  }

  async pendingApprovals(viewer: Actor, now: Date, limit: number): Promise<PendingApprovals> {
    const params = {
      tenant: viewer.tenantId,
      all: readsAllApprovals(viewer) ? 1 : 0,
      viewer: viewer.id,
      now: now.toISOString(),
    };
    return {
      count: this.q.openCount.get(params) ?? 0,
      oldest: this.q.oldest.all({ ...params, limit }).map((r) => toApprovalRecord(r, now)),
    };
  }

  async taskBurn(tenantId: string, limit: number): Promise<TaskSummary[]> {
    return this.q.burn.all(tenantId, limit).map(toTaskSummary);
  }

  async anchorBacklog(tenantId: string): Promise<TenantBacklog> {
    const size = this.q.size.get(tenantId) ?? 0;
    const anchoredSize = this.q.anchored.get(tenantId) ?? 0;
    return {
      size,
      anchoredSize,
      firstUnanchoredAt:
        size > anchoredSize ? (this.q.linkedAt.get(tenantId, anchoredSize + 1) ?? null) : null,
    };
  }
}
