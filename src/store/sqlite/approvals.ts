import type { Actor } from '../../core/actor.js';
import { readsAllApprovals } from '../../core/approval.js';
import { approvalDecision, type ApprovalDecisionOps } from '../../core/approval-decision.js';
import { runSync } from '../../core/use-case.js';
import type {
  ApprovalDecisionInput,
  ApprovalFilter,
  ApprovalKey,
  ApprovalRecord,
  Approvals,
  DecidedApproval,
  Keyset,
  KeysetPage,
} from '../query-ports.js';
import { prep, storeError, type Db } from './database.js';
import type { ApprovalExpiryOps } from '../../core/notify/approval-expiry.js';
import type { ApprovalReminderOps } from '../../core/notify/approval-reminder.js';
import { MARK_EXPIRY, MARK_REMINDER, REMINDED_OF, REMINDER_PAIRS } from '../notify-sql.js';
import { toActor, type ActorRow } from '../rows/actor.js';
import {
  approvalDecisionValues,
  approvalToDecide,
  readableApproval,
  toApprovalRecord,
  toDueReminder,
  toExpiredApproval,
  type ApprovalRow,
  type ReminderRow,
} from '../rows/approval.js';
import { JournalWriter } from './journal.js';
import { sqliteOutbox } from './outbox.js';
import { keysetPage } from '../rows/keyset.js';
import { writeTransaction } from './write-lock.js';

// The intent text lives in the journal record the decision sealed; a redacted record shows none.
export const APPROVAL_SELECT = `SELECT a.tenant_id, a.id, a.status, a.intent_id, a.task_id, a.step, a.capability, a.action, a.requester_id,
    a.amount_micros, a.request_digest, a.amount_source, a.request, a.decided_by, a.decided_at, a.channel, a.note, a.expires_at, a.created_at,
    (SELECT json_extract(j.record, '$.intent') FROM intents i JOIN journal j
       ON j.tenant_id = i.tenant_id AND j.receipt_id = i.receipt_id AND j.tombstone IS NULL
     WHERE i.tenant_id = a.tenant_id AND i.id = a.intent_id) AS intent,
    c.approvers, c.tier
  FROM approvals a LEFT JOIN capabilities c ON c.tenant_id = a.tenant_id AND c.name = a.capability`;

interface PageParams {
  tenant: string;
  all: number;
  viewer: string;
  status: string | null;
  requester: string | null;
  capability: string | null;
  now: string;
  after_created: string | null;
  after_id: string | null;
  limit: number;
}

/**
 * A page of the approvals `viewer` reads, in SQL for paging: the translation of two rules of
 * core/approval.ts. Who reads which approval is `readsApproval` (`@all` is `readsAllApprovals`);
 * the status filter is `effectiveStatus` (`expired` is not stored: pending and approved rows
 * past their expiry answer as expired), which `toApprovalRecord` applies to every row read;
 * `history` is every row that is not pending-and-unexpired.
 */
function approvalPage(db: Db, order: 'oldest' | 'newest') {
  const [after, dir] = order === 'oldest' ? ['>', 'ASC'] : ['<', 'DESC'];
  return db
    .prepare<[PageParams], ApprovalRow>(
      `${APPROVAL_SELECT} WHERE a.tenant_id = @tenant
         AND (@all = 1 OR a.requester_id = @viewer OR EXISTS (SELECT 1 FROM json_each(c.approvers) n
           WHERE n.value = @viewer))
         AND (@status IS NULL
           OR (@status = 'expired' AND a.status IN ('pending', 'approved') AND a.expires_at <= @now)
           OR (@status IN ('pending', 'approved') AND a.status = @status AND a.expires_at > @now)
           OR (@status IN ('denied', 'consumed') AND a.status = @status)
           OR (@status = 'history' AND NOT (a.status = 'pending' AND a.expires_at > @now)))
         AND (@requester IS NULL OR a.requester_id = @requester)
         AND (@capability IS NULL OR a.capability = @capability)
         AND (@after_created IS NULL OR (a.created_at, a.id) ${after} (@after_created, @after_id))
       ORDER BY a.created_at ${dir}, a.id ${dir} LIMIT @limit`,
    )
    .safeIntegers(true);
}

/** The expiry sweep's reads and writes, inside the caller's write transaction. */
export function approvalExpiryOps(db: Db): ApprovalExpiryOps {
  return {
    ...sqliteOutbox(db),
    unannouncedExpired: (now, limit) =>
      (
        prep(
          db,
          `${APPROVAL_SELECT} WHERE a.status = 'pending' AND a.expiry_announced = 0 AND a.expires_at <= ?
           ORDER BY a.expires_at, a.tenant_id, a.id LIMIT ?`,
        )
          .safeIntegers(true)
          .all(now, limit) as ApprovalRow[]
      ).map(toExpiredApproval),
    markExpiryAnnounced: (tenantId, approvalId, now) =>
      prep(db, MARK_EXPIRY).run(tenantId, approvalId, now).changes,
  };
}

/** The reminder sweep's reads and writes, inside the caller's write transaction (the single writer). */
export function approvalReminderOps(db: Db): ApprovalReminderOps {
  return {
    ...sqliteOutbox(db),
    dueReminders: (now, limit) =>
      (
        prep(
          db,
          `${APPROVAL_SELECT.replace('SELECT ', 'SELECT d.id AS reminder_destination, d.escalate_to AS reminder_escalate_to, ')}
           ${REMINDER_PAIRS} AND (julianday(?) - julianday(a.created_at)) * 86400.0 >= d.remind_after_seconds
           ORDER BY a.created_at, a.tenant_id, a.id, d.id LIMIT ?`,
        )
          .safeIntegers(true)
          .all(now, now, limit) as ReminderRow[]
      ).map(toDueReminder),
    remindedOf: (tenantId, approvalId) =>
      (prep(db, REMINDED_OF).all(tenantId, approvalId) as { destination_id: string }[]).map(
        (r) => r.destination_id,
      ),
    markReminded: (tenantId, approvalId, destinationId, eventId, now) =>
      prep(db, MARK_REMINDER).run(tenantId, approvalId, destinationId, eventId, now).changes,
  };
}

export class SqliteApprovals implements Approvals {
  private readonly journal: JournalWriter;
  private readonly q;

  constructor(private readonly db: Db) {
    this.journal = new JournalWriter(db);
    this.q = {
      one: db
        .prepare<[string, string], ApprovalRow>(`${APPROVAL_SELECT} WHERE a.tenant_id = ? AND a.id = ?`)
        .safeIntegers(true),
      page: { oldest: approvalPage(db, 'oldest'), newest: approvalPage(db, 'newest') },
      actor: db.prepare<[string, string], ActorRow>('SELECT * FROM actors WHERE tenant_id = ? AND id = ?'),
      pending: db.prepare<[string], { tenant_id: string; n: number }>(
        `SELECT tenant_id, count(*) AS n FROM approvals WHERE status = 'pending' AND expires_at > ? GROUP BY tenant_id`,
      ),
      decide: db.prepare(
        `UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?, channel = ?, note = ?
         WHERE tenant_id = ? AND id = ? AND status = ? AND expires_at > ?`,
      ),
    };
  }

  async list(
    viewer: Actor,
    page: Keyset<ApprovalKey>,
    filter: ApprovalFilter,
    now: Date,
  ): Promise<KeysetPage<ApprovalRecord, ApprovalKey>> {
    const rows = this.q.page[filter.order ?? 'oldest'].all({
      tenant: viewer.tenantId,
      all: readsAllApprovals(viewer) ? 1 : 0,
      viewer: viewer.id,
      status: filter.status ?? null,
      requester: filter.requesterId ?? null,
      capability: filter.capability ?? null,
      now: now.toISOString(),
      after_created: page.after?.createdAt ?? null,
      after_id: page.after?.id ?? null,
      limit: page.limit + 1,
    });
    return keysetPage(
      rows,
      page.limit,
      (r) => toApprovalRecord(r, now),
      (item) => ({ createdAt: item.createdAt, id: item.id }),
    );
  }

  async pendingCounts(now: Date): Promise<{ tenantId: string; count: number }[]> {
    return this.q.pending.all(now.toISOString()).map((r) => ({ tenantId: r.tenant_id, count: r.n }));
  }

  async get(viewer: Actor, id: string, now: Date): Promise<ApprovalRecord | undefined> {
    return readableApproval(viewer, this.q.one.get(viewer.tenantId, id), now);
  }

  async decide(input: ApprovalDecisionInput): Promise<DecidedApproval> {
    try {
      return await writeTransaction(
        this.db,
        this.db.transaction(() => runSync(approvalDecision<ApprovalRecord>(input), this.decisionOps())),
      );
    } catch (err) {
      throw storeError(err, `approval ${input.approvalId}`);
    }
  }

  /**
   * The reads and writes core/approval-decision.ts asks for, answered at once inside the
   * write transaction. A seam: a test wraps it to change the row before the guarded write.
   */
  protected decisionOps(): ApprovalDecisionOps<ApprovalRecord> {
    const q = this.q;
    return {
      approval: (tenantId, approvalId) => {
        const row = q.one.get(tenantId, approvalId);
        return row && approvalToDecide(row);
      },
      actor: (tenantId, actorId) => {
        const row = q.actor.get(tenantId, actorId);
        return row && toActor(row);
      },
      decide: (w) => q.decide.run(...approvalDecisionValues(w)).changes,
      append: (record, at) => this.journal.append(record, at),
      decided: (tenantId, approvalId, now) => toApprovalRecord(q.one.get(tenantId, approvalId)!, now),
      ...sqliteOutbox(this.db),
    };
  }
}
