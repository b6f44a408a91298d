import type { DecisionEventOps } from '../../core/notify/decision-events.js';
import type { NotifyEvent } from '../../core/notify/event.js';
import type { OutboxOps } from '../../core/notify/outbox.js';
import { INSERT_DELIVERY, INSERT_EVENT, MARK_BUDGET } from '../notify-sql.js';
import { DESTINATION_COLUMNS, toDestination, type DestinationRow } from '../rows/notify.js';
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
  };
}
