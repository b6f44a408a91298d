import { newId } from '../ids.js';
import { asker, type UseCase } from '../use-case.js';
import { typeMatches, type EventType, type NotifyEvent } from './event.js';

/** What the outbox needs to know of a destination to route an event to it. */
export interface Subscriber {
  id: string;
  events: readonly string[];
  enabled: boolean;
}

/**
 * The outbox's two store operations, asked inside the transaction of the change an event
 * reports, so the event and its deliveries commit or roll back with that change.
 */
export interface OutboxOps {
  /** the tenant's destinations, enabled or not */
  subscribers(tenantId: string): Subscriber[];
  /** the event row and one pending delivery, due at the event's timestamp, per destination named */
  writeEvent(event: NotifyEvent, destinationIds: string[]): void;
}

/** The enabled destinations whose patterns take `type`. */
export function subscribedTo(subscribers: readonly Subscriber[], type: EventType): string[] {
  return subscribers.filter((s) => s.enabled && s.events.some((p) => typeMatches(p, type))).map((s) => s.id);
}

/** A new event of the tenant; `data` always carries `tenant_id`. */
export function newEvent(
  tenantId: string,
  type: EventType,
  at: string,
  data: Record<string, unknown>,
): NotifyEvent {
  return { id: newId('evt'), tenantId, type, timestamp: at, data: { ...data, tenant_id: tenantId } };
}

const ask = asker<OutboxOps>();

/**
 * Writes the event for every subscribed destination, in the caller's transaction. With no
 * subscriber nothing is written: an event nobody receives is not kept. Returns the event id,
 * or null when nothing was written. `data` is built only when someone subscribes.
 */
export function* emitEvent(
  tenantId: string,
  type: EventType,
  at: string,
  data: () => Record<string, unknown>,
): UseCase<OutboxOps, string | null> {
  const to = subscribedTo(yield* ask('subscribers', tenantId), type);
  if (to.length === 0) return null;
  const event = newEvent(tenantId, type, at, data());
  yield* ask('writeEvent', event, to);
  return event.id;
}
