import type { DecisionEventOps } from '../../core/notify/decision-events.js';
import type { NotifyEvent } from '../../core/notify/event.js';
import type { OutboxOps } from '../../core/notify/outbox.js';
import type { Async } from '../../core/use-case.js';
import type { FanOutOps } from '../../core/notify/staged-refusal.js';
import {
  DESTINATION_IDS,
  INSERT_DELIVERY,
  INSERT_DISABLED_DELIVERY,
  INSERT_EVENT,
  INSERT_EVENT_ONCE,
  MARK_BUDGET,
  numbered,
  STAGED,
} from '../notify-sql.js';
import {
  DESTINATION_COLUMNS,
  toDestination,
  toStaged,
  type DestinationRow,
  type StagedDbRow,
} from '../rows/notify.js';
import type { PgTx } from './database.js';

/** A tenant's destinations, in id order. */
export const SUBSCRIBERS = `SELECT ${DESTINATION_COLUMNS} FROM notify_destinations WHERE tenant_id = $1 ORDER BY id COLLATE "C"`;

const SQL = {
  subscribers: SUBSCRIBERS,
  insertEvent: numbered(INSERT_EVENT),
  insertDelivery: numbered(INSERT_DELIVERY),
  markBudget: `${numbered(MARK_BUDGET)} RETURNING 1`,
  // One statement for every destination of the refusal.
  stage: `INSERT INTO notify_staged (tenant_id, event_id, destination_id, timestamp, intent_id)
    SELECT $1, $2, d, $3, $4 FROM unnest($5::text[]) AS d`,
  // Several replicas fan out at once: each takes rows no other holds.
  staged: `${numbered(STAGED)} FOR UPDATE OF s SKIP LOCKED`,
  destinationIds: numbered(DESTINATION_IDS),
  insertEventOnce: numbered(INSERT_EVENT_ONCE),
  insertDisabledDelivery: numbered(INSERT_DISABLED_DELIVERY),
  unstage: 'DELETE FROM notify_staged WHERE seq = ANY($1::bigint[])',
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
    stageRefusal: async (r, destinationIds) => {
      await tx.query(SQL.stage, [r.tenantId, r.eventId, r.timestamp, r.intentId, destinationIds]);
      tx.eventWritten?.();
    },
  };
}

/** The fan-out of staged refusals, in the delivery loop's transaction. */
export function pgFanOut(tx: PgTx): Async<FanOutOps> {
  return {
    staged: async (limit) => (await tx.query<StagedDbRow>(SQL.staged, [limit])).map(toStaged),
    destinationIds: async (tenantId) =>
      (await tx.query<{ id: string }>(SQL.destinationIds, [tenantId])).map((r) => r.id),
    writeEventOnce: async (e) =>
      void (await tx.query(SQL.insertEventOnce, [
        e.tenantId,
        e.id,
        e.type,
        e.timestamp,
        JSON.stringify(e.data),
      ])),
    writeDelivery: async (e, destinationId, disabledReason) =>
      void (await (disabledReason === null
        ? tx.query(SQL.insertDelivery, [
            e.tenantId,
            e.id,
            destinationId,
            e.type,
            e.timestamp,
            e.timestamp,
            e.timestamp,
          ])
        : tx.query(SQL.insertDisabledDelivery, [
            e.tenantId,
            e.id,
            destinationId,
            e.type,
            disabledReason,
            e.timestamp,
            e.timestamp,
          ]))),
    unstage: async (seqs) => void (await tx.query(SQL.unstage, [seqs])),
  };
}
