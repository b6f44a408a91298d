import type { DecisionEventOps } from '../../core/notify/decision-events.js';
import type { NotifyEvent } from '../../core/notify/event.js';
import type { OutboxOps } from '../../core/notify/outbox.js';
import type { Async } from '../../core/use-case.js';
import { INSERT_DELIVERY, INSERT_EVENT, MARK_BUDGET, numbered } from '../notify-sql.js';
import { DESTINATION_COLUMNS, toDestination, type DestinationRow } from '../rows/notify.js';
import type { PgTx } from './database.js';

/** A tenant's destinations, in id order. */
export const SUBSCRIBERS = `SELECT ${DESTINATION_COLUMNS} FROM notify_destinations WHERE tenant_id = $1 ORDER BY id COLLATE "C"`;

const SQL = {
  subscribers: SUBSCRIBERS,
  insertEvent: numbered(INSERT_EVENT),
  insertDelivery: numbered(INSERT_DELIVERY),
  markBudget: `${numbered(MARK_BUDGET)} RETURNING 1`,
};

/** The outbox's operations in a tenant transaction, for a use case driven by `runAsync`. */
export function pgOutbox(tx: PgTx): Async<OutboxOps> {
  return {
    subscribers: async (tenantId) =>
      (await tx.query<DestinationRow>(SQL.subscribers, [tenantId])).map(toDestination),
    writeEvent: async (event: NotifyEvent, destinationIds: string[]) => {
      await tx.query(SQL.insertEvent, [
        event.tenantId,
        event.id,
        event.type,
        event.timestamp,
        JSON.stringify(event.data),
      ]);
      for (const d of destinationIds) {
        await tx.query(SQL.insertDelivery, [
          event.tenantId,
          event.id,
          d,
          event.type,
          event.timestamp,
          event.timestamp,
          event.timestamp,
        ]);
      }
      tx.eventWritten?.();
    },
  };
}

/** The outbox and the budget marks, for the decision pipeline's transaction. */
export function pgDecisionEvents(tx: PgTx): Async<DecisionEventOps> {
  return {
    ...pgOutbox(tx),
    markBudget: async (tenantId, taskId, percent, eventId) =>
      (await tx.query(SQL.markBudget, [tenantId, taskId, percent, eventId])).length === 1,
  };
}
