import { attemptChange, REMOVED_REASON } from '../../core/notify/delivery.js';
import { fanOutRefusals } from '../../core/notify/staged-refusal.js';
import { CHAT_APPROVERS, POST_PENDING, type ChatApproverRow } from '../notify-recipients-sql.js';
import type {
  ChatApprover,
  DeliveryAttempt,
  DeliveryQuery,
  DeliveryRecord,
  DueDelivery,
  NotifyCounts,
  NotifyDestination,
  NotifyRepo,
  PostedMessage,
} from '../notify-ports.js';
import {
  BUMP_REGISTRY,
  COUNTS,
  TENANT_COUNTS,
  DELIVERY_PAGE,
  DISABLE_DESTINATION,
  DISABLE_PENDING,
  FORGET_MESSAGES,
  FORGET_REMINDERS,
  MESSAGES_OF,
  SAVE_MESSAGE,
  numbered,
  PURGE_FINISHED,
  PURGE_ORPHAN_EVENTS,
  RECORD_ATTEMPT,
  REDELIVER,
  STAGED_PAGE,
} from '../notify-sql.js';
import {
  DELIVERY_COLUMNS,
  DESTINATION_COLUMNS,
  destinationValues,
  attemptValues,
  DUE_SELECT,
  messageValues,
  toMessage,
  type MessageRow,
  toDestination,
  toDue,
  type DeliveryRow,
  type DestinationRow,
  type DueRow,
  newestPage,
  pageValues,
} from '../rows/notify.js';
import { pgStoreError, type PgDb } from './database.js';
import { pgFanOut, pgOutbox, SUBSCRIBERS } from './outbox.js';
import { approvalExpiryOpsIn, approvalReminderOpsIn } from './approvals.js';
import { approvalExpiry } from '../../core/notify/approval-expiry.js';
import { approvalReminder } from '../../core/notify/approval-reminder.js';
import { runAsync, type UseCase } from '../../core/use-case.js';
import type { OutboxOps } from '../../core/notify/outbox.js';

const SQL = {
  one: `SELECT ${DESTINATION_COLUMNS} FROM notify_destinations WHERE tenant_id = $1 AND id = $2`,
  bump: numbered(BUMP_REGISTRY),
  disablePending: numbered(DISABLE_PENDING),
  disableDestination: numbered(DISABLE_DESTINATION),
  recordAttempt: `${numbered(RECORD_ATTEMPT)} RETURNING 1`,
  redeliver: `${numbered(REDELIVER)} RETURNING 1`,
  tenantCounts: numbered(TENANT_COUNTS),
  page: `SELECT ${DELIVERY_COLUMNS} FROM notify_deliveries ${numbered(DELIVERY_PAGE)}`,
  stagedPage: numbered(STAGED_PAGE),
  purgeFinished: `${numbered(PURGE_FINISHED)} RETURNING 1`,
  forgetMessages: numbered(FORGET_MESSAGES),
  forgetReminders: numbered(FORGET_REMINDERS),
  saveMessage: numbered(SAVE_MESSAGE),
  messagesOf: numbered(MESSAGES_OF),
  chatApprovers: numbered(CHAT_APPROVERS)
    .replace('json_each(a.roles) r WHERE r.value', 'json_array_elements_text(a.roles::json) r WHERE r')
    .replace('json_each(c.approvers) n', 'json_array_elements_text(c.approvers::json) n')
    .replace('n.value = a.id', 'n = a.id'),
  postPending: numbered(POST_PENDING).replace(
    "json_extract(e.data, '$.approval_id')",
    "(e.data::json ->> 'approval_id')",
  ),
};

export class PgNotify implements NotifyRepo {
  constructor(private readonly db: PgDb) {}

  async addDestination(d: NotifyDestination): Promise<void> {
    try {
      await this.db.tx(async (tx) => {
        await tx.query(
          `INSERT INTO notify_destinations (${DESTINATION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
          destinationValues(d),
        );
        await tx.query(SQL.bump, [d.tenantId]);
      });
    } catch (err) {
      throw pgStoreError(err, `notification destination ${d.id}`);
    }
  }

  async destinations(tenantId: string): Promise<NotifyDestination[]> {
    return (await this.db.query<DestinationRow>(SUBSCRIBERS, [tenantId])).map(toDestination);
  }

  async destination(tenantId: string, id: string): Promise<NotifyDestination | undefined> {
    const [r] = await this.db.query<DestinationRow>(SQL.one, [tenantId, id]);
    return r && toDestination(r);
  }

  async removeDestination(tenantId: string, id: string): Promise<boolean> {
    const at = new Date().toISOString();
    return this.db.tx(async (tx) => {
      const gone =
        (
          await tx.query('DELETE FROM notify_destinations WHERE tenant_id = $1 AND id = $2 RETURNING 1', [
            tenantId,
            id,
          ])
        ).length === 1;
      if (gone) {
        await tx.query(SQL.disablePending, [REMOVED_REASON, at, tenantId, id]);
        await tx.query(SQL.forgetMessages, [tenantId, id]);
        await tx.query(SQL.forgetReminders, [tenantId, id]);
        await tx.query(SQL.bump, [tenantId]);
      }
      return gone;
    });
  }

  /**
   * Each due row is locked and leased in one statement; a replica's concurrent claim skips
   * the rows this one holds (`SKIP LOCKED`) and, after the commit, finds them leased.
   */
  async claimDue(now: string, owner: string, leaseUntil: string, limit: number): Promise<DueDelivery[]> {
    return this.db.tx(async (tx) => {
      await runAsync(fanOutRefusals(limit), pgFanOut(tx));
      const keys = await tx.query<{ tenant_id: string; event_id: string; destination_id: string }>(
        `UPDATE notify_deliveries l SET lease_owner = $1, lease_until = $2
         FROM (SELECT tenant_id, event_id, destination_id FROM notify_deliveries
               WHERE state = 'pending' AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until <= $3)
               ORDER BY next_attempt_at, tenant_id, event_id, destination_id LIMIT $4
               FOR UPDATE SKIP LOCKED) due
         WHERE l.tenant_id = due.tenant_id AND l.event_id = due.event_id AND l.destination_id = due.destination_id
         RETURNING l.tenant_id, l.event_id, l.destination_id, l.next_attempt_at`,
        [owner, leaseUntil, now, limit],
      );
      if (keys.length === 0) return [];
      const rows = await tx.query<DueRow>(
        `${DUE_SELECT} WHERE (l.tenant_id, l.event_id, l.destination_id) IN
           (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))
         ORDER BY l.next_attempt_at, l.tenant_id, l.event_id, l.destination_id`,
        [keys.map((k) => k.tenant_id), keys.map((k) => k.event_id), keys.map((k) => k.destination_id)],
      );
      return rows.map(toDue);
    });
  }

  async recordAttempt(a: DeliveryAttempt): Promise<boolean> {
    const change = attemptChange(a);
    return this.db.tx(async (tx) => {
      const held = (await tx.query(SQL.recordAttempt, attemptValues(a, change))).length === 1;
      if (held && change.disableDestination !== null) {
        await tx.query(SQL.disableDestination, [change.disableDestination, a.tenantId, a.destinationId]);
        await tx.query(SQL.disablePending, [change.disableDestination, a.at, a.tenantId, a.destinationId]);
        await tx.query(SQL.bump, [a.tenantId]);
      }
      return held;
    });
  }

  async deliveries(tenantId: string, q: DeliveryQuery): Promise<DeliveryRecord[]> {
    const values = pageValues(tenantId, q);
    const [deliveries, staged] = await Promise.all([
      this.db.query<DeliveryRow>(SQL.page, values),
      this.db.query<DeliveryRow>(SQL.stagedPage, values),
    ]);
    return newestPage(deliveries, staged, q.limit);
  }

  async redeliver(tenantId: string, eventId: string, destinationId: string, now: string): Promise<boolean> {
    return (await this.db.query(SQL.redeliver, [now, now, tenantId, eventId, destinationId])).length === 1;
  }

  async saveMessage(m: PostedMessage): Promise<void> {
    await this.db.query(SQL.saveMessage, messageValues(m));
  }

  async messages(tenantId: string, destinationId: string, approvalId: string): Promise<PostedMessage[]> {
    return (await this.db.query<MessageRow>(SQL.messagesOf, [tenantId, destinationId, approvalId])).map(
      toMessage,
    );
  }

  async chatApprovers(tenantId: string, capability: string, requesterId: string): Promise<ChatApprover[]> {
    const rows = await this.db.query<ChatApproverRow>(SQL.chatApprovers, [tenantId, requesterId, capability]);
    return rows.map((r) => ({ actorId: r.actor_id, chatUserId: r.chat_user_id }));
  }

  async postPending(tenantId: string, destinationId: string, approvalId: string): Promise<boolean> {
    return (await this.db.query(SQL.postPending, [tenantId, destinationId, approvalId])).length > 0;
  }

  async counts(tenantId?: string): Promise<NotifyCounts> {
    type Row = { pending: string; dead: string; disabled: string };
    const [r] =
      tenantId === undefined
        ? await this.db.query<Row>(COUNTS)
        : await this.db.query<Row>(SQL.tenantCounts, [tenantId, tenantId, tenantId, tenantId]);
    return { pending: Number(r!.pending), dead: Number(r!.dead), disabled: Number(r!.disabled) };
  }

  async announceExpired(now: Date, limit: number): Promise<number> {
    return this.db.tx((tx) => runAsync(approvalExpiry(now, limit), approvalExpiryOpsIn(tx)));
  }

  async announceReminders(now: Date, limit: number): Promise<number> {
    return this.db.tx((tx) => runAsync(approvalReminder(now, limit), approvalReminderOpsIn(tx)));
  }

  async purgeFinished(before: string): Promise<number> {
    return this.db.tx(async (tx) => {
      const n = (await tx.query(SQL.purgeFinished, [before])).length;
      if (n > 0) await tx.query(PURGE_ORPHAN_EVENTS);
      return n;
    });
  }

  async runOutbox<R>(useCase: UseCase<OutboxOps, R>): Promise<R> {
    return this.db.tx((tx) => runAsync(useCase, pgOutbox(tx)));
  }

  onEventsCommitted(listener: () => void): () => void {
    return this.db.outbox.listen(listener);
  }
}
