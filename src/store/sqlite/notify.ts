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
  newestPage,
  pageValues,
  toMessage,
  type MessageRow,
  toDestination,
  toDue,
  type DeliveryRow,
  type DestinationRow,
  type DueRow,
} from '../rows/notify.js';
import { prep, storeError, type Db } from './database.js';
import { outboxSignal, sqliteFanOut, sqliteOutbox } from './outbox.js';
import { approvalExpiryOps, approvalReminderOps } from './approvals.js';
import { approvalExpiry } from '../../core/notify/approval-expiry.js';
import { approvalReminder } from '../../core/notify/approval-reminder.js';
import { runSync, type UseCase } from '../../core/use-case.js';
import type { OutboxOps } from '../../core/notify/outbox.js';
import { writeTransaction } from './write-lock.js';
import type { CommitQueue } from './commit-queue.js';

export class SqliteNotify implements NotifyRepo {
  /**
   * `commits`: the daemon's group commit. The loop's claims and outcomes, two writes per
   * delivery, join the decisions' batches and their fsync off the event loop; each on its
   * own would take the write lock and fsync on the event loop, stalling every decision.
   */
  constructor(
    private readonly db: Db,
    private readonly commits?: CommitQueue,
  ) {}

  /** A write of the delivery loop: in the group commit when there is one. */
  private loopWrite<T>(work: () => T): Promise<T> {
    return this.commits ? this.commits.submit(work) : writeTransaction(this.db, this.db.transaction(work));
  }

  async addDestination(d: NotifyDestination): Promise<void> {
    try {
      await writeTransaction(
        this.db,
        this.db.transaction(() => {
          prep(
            this.db,
            `INSERT INTO notify_destinations (${DESTINATION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          ).run(...destinationValues(d));
          prep(this.db, BUMP_REGISTRY).run(d.tenantId);
        }),
      );
    } catch (err) {
      throw storeError(err, `notification destination ${d.id}`);
    }
  }

  async destinations(tenantId: string): Promise<NotifyDestination[]> {
    return sqliteOutbox(this.db).subscribers(tenantId) as NotifyDestination[];
  }

  async destination(tenantId: string, id: string): Promise<NotifyDestination | undefined> {
    const r = prep(
      this.db,
      `SELECT ${DESTINATION_COLUMNS} FROM notify_destinations WHERE tenant_id = ? AND id = ?`,
    ).get(tenantId, id) as DestinationRow | undefined;
    return r && toDestination(r);
  }

  async removeDestination(tenantId: string, id: string): Promise<boolean> {
    const at = new Date().toISOString();
    return writeTransaction(
      this.db,
      this.db.transaction(() => {
        const gone =
          prep(this.db, 'DELETE FROM notify_destinations WHERE tenant_id = ? AND id = ?').run(tenantId, id)
            .changes === 1;
        if (gone) {
          prep(this.db, DISABLE_PENDING).run(REMOVED_REASON, at, tenantId, id);
          prep(this.db, FORGET_MESSAGES).run(tenantId, id);
          prep(this.db, FORGET_REMINDERS).run(tenantId, id);
          prep(this.db, BUMP_REGISTRY).run(tenantId);
        }
        return gone;
      }),
    );
  }

  async claimDue(now: string, owner: string, leaseUntil: string, limit: number): Promise<DueDelivery[]> {
    // The loop looks every second: a plain read first, so an empty outbox never takes the
    // write lock from the decisions' commit queue.
    const due = prep(
      this.db,
      `SELECT 1 FROM notify_deliveries
       WHERE state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
       UNION ALL SELECT 1 FROM notify_staged LIMIT 1`,
    ).get(now, now);
    if (due === undefined) return [];
    // In a write transaction: several daemons may serve one data dir, and SQLite's single
    // writer makes the select-then-lease atomic across them.
    return this.loopWrite(() => {
      runSync(fanOutRefusals(limit), sqliteFanOut(this.db));
      const keys = prep(
        this.db,
        `SELECT tenant_id, event_id, destination_id FROM notify_deliveries
           WHERE state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
           ORDER BY next_attempt_at, tenant_id, event_id, destination_id LIMIT ?`,
      ).all(now, now, limit) as { tenant_id: string; event_id: string; destination_id: string }[];
      const lease = prep(
        this.db,
        `UPDATE notify_deliveries SET lease_owner = ?, lease_until = ?
           WHERE tenant_id = ? AND event_id = ? AND destination_id = ?`,
      );
      const read = prep(
        this.db,
        `${DUE_SELECT} WHERE l.tenant_id = ? AND l.event_id = ? AND l.destination_id = ?`,
      );
      return keys.map((k) => {
        lease.run(owner, leaseUntil, k.tenant_id, k.event_id, k.destination_id);
        return toDue(read.get(k.tenant_id, k.event_id, k.destination_id) as DueRow);
      });
    });
  }

  async recordAttempt(a: DeliveryAttempt): Promise<boolean> {
    const change = attemptChange(a);
    return this.loopWrite(() => {
      const held = prep(this.db, RECORD_ATTEMPT).run(...attemptValues(a, change)).changes === 1;
      if (held && change.disableDestination !== null) {
        prep(this.db, DISABLE_DESTINATION).run(change.disableDestination, a.tenantId, a.destinationId);
        prep(this.db, DISABLE_PENDING).run(change.disableDestination, a.at, a.tenantId, a.destinationId);
        prep(this.db, BUMP_REGISTRY).run(a.tenantId);
      }
      return held;
    });
  }

  async deliveries(tenantId: string, q: DeliveryQuery): Promise<DeliveryRecord[]> {
    const values = pageValues(tenantId, q);
    const page = (sql: string) => prep(this.db, sql).all(...values) as DeliveryRow[];
    return newestPage(
      page(`SELECT ${DELIVERY_COLUMNS} FROM notify_deliveries ${DELIVERY_PAGE}`),
      page(STAGED_PAGE),
      q.limit,
    );
  }

  async redeliver(tenantId: string, eventId: string, destinationId: string, now: string): Promise<boolean> {
    const run = () => prep(this.db, REDELIVER).run(now, now, tenantId, eventId, destinationId).changes === 1;
    return writeTransaction(this.db, this.db.transaction(run));
  }

  async saveMessage(m: PostedMessage): Promise<void> {
    await writeTransaction(
      this.db,
      this.db.transaction(() => prep(this.db, SAVE_MESSAGE).run(...messageValues(m))),
    );
  }

  async messages(tenantId: string, destinationId: string, approvalId: string): Promise<PostedMessage[]> {
    return (prep(this.db, MESSAGES_OF).all(tenantId, destinationId, approvalId) as MessageRow[]).map(
      toMessage,
    );
  }

  async chatApprovers(tenantId: string, capability: string, requesterId: string): Promise<ChatApprover[]> {
    const rows = prep(this.db, CHAT_APPROVERS).all(tenantId, requesterId, capability) as ChatApproverRow[];
    return rows.map((r) => ({ actorId: r.actor_id, chatUserId: r.chat_user_id }));
  }

  async postPending(tenantId: string, destinationId: string, approvalId: string): Promise<boolean> {
    return prep(this.db, POST_PENDING).get(tenantId, destinationId, approvalId) !== undefined;
  }

  async counts(tenantId?: string): Promise<NotifyCounts> {
    const q =
      tenantId === undefined
        ? prep(this.db, COUNTS).get()
        : prep(this.db, TENANT_COUNTS).get(tenantId, tenantId, tenantId, tenantId);
    const r = q as { pending: number; dead: number; disabled: number };
    return { pending: Number(r.pending), dead: Number(r.dead), disabled: Number(r.disabled) };
  }

  async announceExpired(now: Date, limit: number): Promise<number> {
    const ops = approvalExpiryOps(this.db);
    return writeTransaction(
      this.db,
      this.db.transaction(() => runSync(approvalExpiry(now, limit), ops)),
    );
  }

  async announceReminders(now: Date, limit: number): Promise<number> {
    const ops = approvalReminderOps(this.db);
    return writeTransaction(
      this.db,
      this.db.transaction(() => runSync(approvalReminder(now, limit), ops)),
    );
  }

  async purgeFinished(before: string): Promise<number> {
    return writeTransaction(
      this.db,
      this.db.transaction(() => {
        const n = prep(this.db, PURGE_FINISHED).run(before).changes;
        if (n > 0) prep(this.db, PURGE_ORPHAN_EVENTS).run();
        return n;
      }),
    );
  }

  async runOutbox<R>(useCase: UseCase<OutboxOps, R>): Promise<R> {
    const ops = sqliteOutbox(this.db);
    return writeTransaction(
      this.db,
      this.db.transaction(() => runSync(useCase, ops)),
    );
  }

  onEventsCommitted(listener: () => void): () => void {
    return outboxSignal(this.db).listen(listener);
  }
}
