import type { DecisionEventOps } from '../../core/notify/decision-events.js';
import type { NotifyEvent } from '../../core/notify/event.js';
import type { OutboxOps } from '../../core/notify/outbox.js';
import type { FanOutOps } from '../../core/notify/staged-refusal.js';
import {
  DESTINATION_IDS,
  INSERT_DELIVERY,
  INSERT_DISABLED_DELIVERY,
  INSERT_EVENT,
  INSERT_EVENT_ONCE,
  MARK_BUDGET,
  STAGE_REFUSAL,
  STAGED,
} from '../notify-sql.js';
import {
  DESTINATION_COLUMNS,
  toDestination,
  toStaged,
  type DestinationRow,
  type StagedDbRow,
} from '../rows/notify.js';
import { OutboxSignal } from '../outbox-signal.js';
import { prep, type Db } from './database.js';

const signals = new WeakMap<Db, OutboxSignal>();

/** The connection's signal of committed events (outbox-signal.ts). */
export function outboxSignal(db: Db): OutboxSignal {
  let s = signals.get(db);
  if (!s) {
    s = new OutboxSignal();
    signals.set(db, s);
  }
  return s;
}

/**
 * The outbox's operations on this connection, for a use case running inside a write
 * transaction (the change and its event commit together).
 */
export function sqliteOutbox(db: Db): OutboxOps {
  return {
    subscribers: (tenantId) =>
      (
        prep(
          db,
          `SELECT ${DESTINATION_COLUMNS} FROM notify_destinations WHERE tenant_id = ? ORDER BY id`,
        ).all(tenantId) as DestinationRow[]
      ).map(toDestination),
    writeEvent: (event: NotifyEvent, destinationIds: string[]) => {
      prep(db, INSERT_EVENT).run(
        event.tenantId,
        event.id,
        event.type,
        event.timestamp,
        JSON.stringify(event.data),
      );
      const insert = prep(db, INSERT_DELIVERY);
      for (const d of destinationIds) {
        insert.run(
          event.tenantId,
          event.id,
          d,
          event.type,
          event.timestamp,
          event.timestamp,
          event.timestamp,
        );
      }
      // better-sqlite3 runs a transaction synchronously, so by the signal's turn it has
      // committed (or rolled back, which costs the loop one empty look).
      outboxSignal(db).committed();
    },
  };
}

/** The outbox and the budget marks, for the decision pipeline's transaction. */
export function sqliteDecisionEvents(db: Db): DecisionEventOps {
  return {
    ...sqliteOutbox(db),
    markBudget: (tenantId, taskId, percent, eventId) =>
      prep(db, MARK_BUDGET).run(tenantId, taskId, percent, eventId).changes === 1,
    stageRefusal: (r, destinationIds) => {
      const stage = prep(db, STAGE_REFUSAL);
      for (const d of destinationIds) stage.run(r.tenantId, r.eventId, d, r.timestamp, r.intentId);
      outboxSignal(db).committed();
    },
  };
}

/** The fan-out of staged refusals, inside the delivery loop's write transaction. */
export function sqliteFanOut(db: Db): FanOutOps {
  return {
    staged: (limit) => (prep(db, STAGED).all(limit) as StagedDbRow[]).map(toStaged),
    destinationIds: (tenantId) =>
      (prep(db, DESTINATION_IDS).all(tenantId) as { id: string }[]).map((r) => r.id),
    writeEventOnce: (e) =>
      void prep(db, INSERT_EVENT_ONCE).run(e.tenantId, e.id, e.type, e.timestamp, JSON.stringify(e.data)),
    writeDelivery: (e, destinationId, disabledReason) =>
      void (disabledReason === null
        ? prep(db, INSERT_DELIVERY).run(
            e.tenantId,
            e.id,
            destinationId,
            e.type,
            e.timestamp,
            e.timestamp,
            e.timestamp,
          )
        : prep(db, INSERT_DISABLED_DELIVERY).run(
            e.tenantId,
            e.id,
            destinationId,
            e.type,
            disabledReason,
            e.timestamp,
            e.timestamp,
          )),
    unstage: (seqs) => {
      const del = prep(db, 'DELETE FROM notify_staged WHERE seq = ?');
      for (const seq of seqs) del.run(seq);
    },
  };
}
