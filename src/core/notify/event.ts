import { invalidField } from '../errors.js';

/**
 * Outbound events (semantics.md "Events and notifications"): operational signals, not
 * evidence. The journal stays the record; an event never carries more than a reader of the
 * approval or receipt it names could already read. New types may be added; fields are never
 * removed or renamed.
 */
export const EVENT_TYPES = [
  'approval.requested',
  'approval.decided',
  'approval.expired',
  'approval.reminder',
  'access_request.created',
  'manager_card.decided',
  'entitlement.revoked',
  'budget.threshold',
  'decision.refused',
  'attestation.failed',
  'integration.surface_revoked',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** An event as the outbox holds it; `id` (`evt_…`, from `newId('evt')`) is stable across retries. */
export interface NotifyEvent {
  id: string;
  tenantId: string;
  type: EventType;
  /** RFC 3339, when the change it reports was committed */
  timestamp: string;
  /** the payload; `tenant_id` is always present */
  data: { tenant_id: string } & Record<string, unknown>;
}

/** What a receiver gets: `{type, timestamp, data}` (the id travels as `webhook-id`). */
export function eventEnvelope(e: NotifyEvent): {
  type: EventType;
  timestamp: string;
  data: NotifyEvent['data'];
} {
  return { type: e.type, timestamp: e.timestamp, data: e.data };
}

/** `approval.requested`, `approval.*` or `*`: an exact type, a family, or everything. */
const PATTERN = /^(?:\*|[a-z_]+\.\*|[a-z_]+\.[a-z_]+)$/;

/**
 * A destination's subscription, checked when it is configured. A family or an exact type
 * must name one that exists, so a typo never subscribes to nothing in silence.
 */
export function checkEventPattern(field: string, pattern: string): string {
  const known =
    PATTERN.test(pattern) &&
    (pattern === '*' ||
      EVENT_TYPES.some((t) => (pattern.endsWith('.*') ? t.startsWith(pattern.slice(0, -1)) : t === pattern)));
  if (!known) {
    throw invalidField(field, `an event type (${EVENT_TYPES.join(', ')}), a family such as approval.*, or *`);
  }
  return pattern;
}

/** Whether a subscription pattern takes an event type. */
export function typeMatches(pattern: string, type: EventType): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}
