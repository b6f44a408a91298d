import { newId } from '../ids.js';
import { asker, type UseCase } from '../use-case.js';
import { typeMatches, type EventType, type NotifyEvent } from './event.js';

/** What the outbox needs to know of a destination to route an event to it. */
export interface Subscriber {
  id: string;
  kind: string;
  events: readonly string[];
  enabled: boolean;
  /** the destination this one's reminders also go to */
  escalateTo?: string | null;
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

/** Kinds that post a message people act on, and so must see the outcome too. */
const MESSAGE_KINDS = new Set(['chat', 'collab']);
const OUTCOMES = new Set<EventType>(['approval.decided', 'approval.expired']);
const POSTS_BUTTONS: readonly EventType[] = ['approval.requested', 'approval.reminder'];

/**
 * Whether a destination takes an event of `type`; `escalation` says whether another enabled
 * destination of the tenant escalates its reminders to this one.
 */
export function takes(s: Subscriber, type: EventType, escalation = false): boolean {
  if (!s.enabled) return false;
  if (s.events.some((p) => typeMatches(p, type))) return true;
  // A chat or collab message with Approve / Deny buttons is turned into the outcome once the
  // approval is decided from any channel, or expires: buttons that no longer work must not
  // stay on screen, whatever else the destination subscribed to. An escalation destination
  // gets reminders (with buttons) whatever it subscribed to, so it gets outcomes too.
  return (
    MESSAGE_KINDS.has(s.kind) &&
    OUTCOMES.has(type) &&
    (escalation || s.events.some((p) => POSTS_BUTTONS.some((t) => typeMatches(p, t))))
  );
}

/** The enabled destinations that take `type`. */
export function subscribedTo(subscribers: readonly Subscriber[], type: EventType): string[] {
  const escalations = new Set(subscribers.filter((s) => s.enabled).map((s) => s.escalateTo));
  return subscribers.filter((s) => takes(s, type, escalations.has(s.id))).map((s) => s.id);
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
