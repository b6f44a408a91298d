import { asker, type UseCase } from '../use-case.js';
import { REMOVED_REASON } from './delivery.js';
import type { NotifyEvent } from './event.js';
import { refusedData } from './payloads.js';

/**
 * `decision.refused` is the one event a decision can raise at full request rate (an agent
 * refused in a loop), and everything its payload says is already in the refused intent the
 * same transaction writes. So the decision stages a reference, one small row per subscribed
 * destination with no payload and no index beyond its sequence, and the delivery loop fans
 * the staged rows out into the event and its deliveries in its own transactions, building the
 * payload from the intent. It is still written in the transaction of the change it reports
 * (semantics.md: an outbox): a staged row commits or rolls back with the refusal, and until
 * it is fanned out it is listed and counted as a pending delivery.
 */
export interface StagedRefusal {
  tenantId: string;
  /** the event's id, the same for every destination of the refusal */
  eventId: string;
  /** when the refusal was decided: the event's timestamp */
  timestamp: string;
  intentId: string;
}

/** A staged row as the fan-out reads it, with the refused intent it names (undefined: gone). */
export interface StagedRow extends StagedRefusal {
  seq: number;
  destinationId: string;
  intent:
    | {
        receiptId: string;
        taskId: string;
        step: string;
        actorId: string;
        capability: string;
        action: string;
        code: string | null;
        reason: string | null;
        amountMicros: bigint;
        requestDigest: string;
      }
    | undefined;
}

export interface FanOutOps {
  /** up to `limit` staged rows, oldest first; on PostgreSQL locked, skipping rows another replica holds */
  staged(limit: number): StagedRow[];
  /** the ids of the tenant's destinations that exist now */
  destinationIds(tenantId: string): string[];
  /** the event row, unless a batch before this one already wrote it */
  writeEventOnce(event: NotifyEvent): void;
  /** a pending delivery due at the event's timestamp; with `disabledReason`, a disabled one */
  writeDelivery(event: NotifyEvent, destinationId: string, disabledReason: string | null): void;
  unstage(seqs: number[]): void;
}

const ask = asker<FanOutOps>();

/**
 * Fans out up to `limit` staged refusal deliveries; returns how many staged rows it took.
 * A destination removed since the refusal gets a disabled delivery, as a pending one does
 * when its destination is removed; a staged row whose intent is gone (it cannot be, the two
 * commit together) is dropped rather than sent half-known.
 */
export function* fanOutRefusals(limit: number): UseCase<FanOutOps, number> {
  const rows = yield* ask('staged', limit);
  if (rows.length === 0) return 0;
  const live = new Map<string, Set<string>>();
  const written = new Set<string>();
  for (const row of rows) {
    if (row.intent === undefined) continue;
    let ids = live.get(row.tenantId);
    if (!ids) {
      ids = new Set(yield* ask('destinationIds', row.tenantId));
      live.set(row.tenantId, ids);
    }
    const event: NotifyEvent = {
      id: row.eventId,
      tenantId: row.tenantId,
      type: 'decision.refused',
      timestamp: row.timestamp,
      data: {
        ...refusedData({ ...row.intent, intentId: row.intentId, at: row.timestamp }),
        tenant_id: row.tenantId,
      },
    };
    if (!written.has(event.id)) {
      yield* ask('writeEventOnce', event);
      written.add(event.id);
    }
    yield* ask('writeDelivery', event, row.destinationId, ids.has(row.destinationId) ? null : REMOVED_REASON);
  }
  yield* ask(
    'unstage',
    rows.map((r) => r.seq),
  );
  return rows.length;
}
