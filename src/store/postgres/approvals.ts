import type { Actor } from '../../core/actor.js';
import { readsAllApprovals } from '../../core/approval.js';
import { approvalDecision, type ApprovalDecisionOps } from '../../core/approval-decision.js';
import { pgOutbox } from './outbox.js';
import { runAsync, type Async } from '../../core/use-case.js';
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
import { keysetPage } from '../rows/keyset.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { appendJournal } from './journal.js';
import { lockTenant } from './locks.js';
import type { ApprovalExpiryOps } from '../../core/notify/approval-expiry.js';
import type { ApprovalReminderOps } from '../../core/notify/approval-reminder.js';
import { MARK_EXPIRY, MARK_REMINDER, numbered, REMINDED_OF, REMINDER_PAIRS } from '../notify-sql.js';

// The intent text lives in the journal record the decision sealed; a redacted record shows none.
export const APPROVAL_SELECT = `SELECT a.tenant_id, a.id, a.status, a.intent_id, a.task_id, a.step, a.capability, a.action, a.requester_id,
    a.amount_micros, a.request_digest, a.amount_source, a.request, a.decided_by, a.decided_at, a.channel, a.note, a.expires_at, a.created_at,
    (SELECT CASE WHEN json_typeof(j.record::json -> 'intent') = 'string' THEN j.record::json ->> 'intent' END
       FROM intents i JOIN journal j ON j.tenant_id = i.tenant_id AND j.receipt_id = i.receipt_id
         AND j.tombstone IS NULL
     WHERE i.tenant_id = a.tenant_id AND i.id = a.intent_id) AS intent,
    c.approvers, c.tier
  FROM approvals a LEFT JOIN capabilities c ON c.tenant_id = a.tenant_id AND c.name = a.capability`;

async function one(tx: Pick<PgTx, 'query'>, tenantId: string, id: string): Promise<ApprovalRow | undefined> {
  const [row] = await tx.query<ApprovalRow>(`${APPROVAL_SELECT} WHERE a.tenant_id = $1 AND a.id = $2`, [
    tenantId,
    id,
  ]);
  return row;
}

/** The expiry sweep's reads and writes; the rows found are locked, so another replica's sweep skips them. */
export function approvalExpiryOpsIn(tx: PgTx): Async<ApprovalExpiryOps> {
  return {
    ...pgOutbox(tx),
    unannouncedExpired: async (now, limit) =>
      (
        await tx.query<ApprovalRow>(
          `${APPROVAL_SELECT} WHERE a.status = 'pending' AND a.expiry_announced = 0 AND a.expires_at <= $1
           ORDER BY a.expires_at, a.tenant_id, a.id LIMIT $2 FOR UPDATE OF a SKIP LOCKED`,
          [now, limit],
        )
      ).map(toExpiredApproval),
    markExpiryAnnounced: async (tenantId, approvalId, now) =>
      (await tx.query(`${numbered(MARK_EXPIRY)} RETURNING 1`, [tenantId, approvalId, now])).length,
  };
}

/**
 * The reminder sweep's reads and writes. The approvals found are locked as the expiry sweep
 * locks them, so another replica's sweep skips them; what it committed just before our lock
 * is read again by `remindedOf` (a fresh statement under READ COMMITTED).
 */
export function approvalReminderOpsIn(tx: PgTx): Async<ApprovalReminderOps> {
  return {
    ...pgOutbox(tx),
    dueReminders: async (now, limit) =>
      (
        await tx.query<ReminderRow>(
          numbered(
            `${APPROVAL_SELECT.replace('SELECT ', 'SELECT d.id AS reminder_destination, d.escalate_to AS reminder_escalate_to, ')}
             ${REMINDER_PAIRS}
               AND extract(epoch FROM (?::timestamptz - a.created_at::timestamptz)) >= d.remind_after_seconds
             ORDER BY a.created_at, a.tenant_id, a.id, d.id LIMIT ? FOR UPDATE OF a SKIP LOCKED`,
          ),
          [now, now, limit],
        )
      ).map(toDueReminder),
    remindedOf: async (tenantId, approvalId) =>
      (await tx.query<{ destination_id: string }>(numbered(REMINDED_OF), [tenantId, approvalId])).map(
        (r) => r.destination_id,
      ),
    markReminded: async (tenantId, approvalId, destinationId, eventId, now) =>
      (
        await tx.query(`${numbered(MARK_REMINDER)} RETURNING 1`, [
          tenantId,
          approvalId,
          destinationId,
          eventId,
          now,
        ])
      ).length,
  };
}

export class PgApprovals implements Approvals {
  constructor(private readonly db: PgDb) {}

  async list(
    viewer: Actor,
    page: Keyset<ApprovalKey>,
    filter: ApprovalFilter,
    now: Date,
  ): Promise<KeysetPage<ApprovalRecord, ApprovalKey>> {
    const [after, dir] = filter.order === 'newest' ? ['<', 'DESC'] : ['>', 'ASC'];
    // In SQL for paging, the translation of two rules of core/approval.ts: who reads which
    // approval is `readsApproval` ($2 is `readsAllApprovals`); the status filter is
    // `effectiveStatus` (`expired` is not stored: pending and approved rows past their expiry
    // answer as expired), which `toApprovalRecord` applies to every row read.
    const rows = await this.db.query<ApprovalRow>(
      `${APPROVAL_SELECT} WHERE a.tenant_id = $1
         AND ($2 OR a.requester_id = $3 OR EXISTS (SELECT 1 FROM json_array_elements_text(c.approvers::json) n
           WHERE n = $3))
         AND ($4::text IS NULL
           OR ($4 = 'expired' AND a.status IN ('pending', 'approved') AND a.expires_at <= $5)
           OR ($4 IN ('pending', 'approved') AND a.status = $4 AND a.expires_at > $5)
           OR ($4 IN ('denied', 'consumed') AND a.status = $4)
           OR ($4 = 'history' AND NOT (a.status = 'pending' AND a.expires_at > $5)))
         AND ($6::text IS NULL OR (a.created_at, a.id) ${after} ($6, $7::text))
         AND ($9::text IS NULL OR a.requester_id = $9)
         AND ($10::text IS NULL OR a.capability = $10)
       ORDER BY a.created_at ${dir}, a.id ${dir} LIMIT $8`,
      [
        viewer.tenantId,
        readsAllApprovals(viewer),
        viewer.id,
        filter.status ?? null,
        now.toISOString(),
        page.after?.createdAt ?? null,
        page.after?.id ?? null,
        page.limit + 1,
        filter.requesterId ?? null,
        filter.capability ?? null,
      ],
    );
    return keysetPage(
      rows,
      page.limit,
      (r) => toApprovalRecord(r, now),
      (item) => ({ createdAt: item.createdAt, id: item.id }),
    );
  }

  async pendingCounts(now: Date): Promise<{ tenantId: string; count: number }[]> {
    const rows = await this.db.query<{ tenant_id: string; n: string }>(
      `SELECT tenant_id, count(*) AS n FROM approvals WHERE status = 'pending' AND expires_at > $1 GROUP BY tenant_id`,
      [now.toISOString()],
    );
    return rows.map((r) => ({ tenantId: r.tenant_id, count: Number(r.n) }));
  }

  async get(viewer: Actor, id: string, now: Date): Promise<ApprovalRecord | undefined> {
    return readableApproval(viewer, await one(this.db, viewer.tenantId, id), now);
  }

  /**
   * Decided once across replicas: the tenant lock is taken before the approval is read, so
   * two approvers on two replicas are judged one after the other and the second finds it
   * decided; the guarded UPDATE is the backstop.
   */
  async decide(input: ApprovalDecisionInput): Promise<DecidedApproval> {
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, input.tenantId);
        return runAsync(approvalDecision<ApprovalRecord>(input), this.decisionOpsIn(tx));
      });
    } catch (err) {
      throw pgStoreError(err, `approval ${input.approvalId}`);
    }
  }

  /**
   * The reads and writes core/approval-decision.ts asks for, in the tenant's transaction. A
   * seam: a test wraps it to change the row, from another connection, before the guarded write.
   */
  protected decisionOpsIn(tx: PgTx): Async<ApprovalDecisionOps<ApprovalRecord>> {
    return {
      approval: async (tenantId, approvalId) => {
        const row = await one(tx, tenantId, approvalId);
        return row && approvalToDecide(row);
      },
      actor: async (tenantId, actorId) => {
        const [row] = await tx.query<ActorRow>('SELECT * FROM actors WHERE tenant_id = $1 AND id = $2', [
          tenantId,
          actorId,
        ]);
        return row && toActor(row);
      },
      decide: async (w) =>
        (
          await tx.query(
            `UPDATE approvals SET status = $1, decided_by = $2, decided_at = $3, channel = $4, note = $5
             WHERE tenant_id = $6 AND id = $7 AND status = $8 AND expires_at > $9 RETURNING 1`,
            approvalDecisionValues(w),
          )
        ).length,
      append: (record, at) => appendJournal(tx, record, at),
      decided: async (tenantId, approvalId, now) =>
        toApprovalRecord((await one(tx, tenantId, approvalId))!, now),
      ...pgOutbox(tx),
    };
  }
}
