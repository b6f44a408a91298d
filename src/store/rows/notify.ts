import type { AttemptChange } from '../../core/notify/delivery.js';
import type { NotifyEvent } from '../../core/notify/event.js';
import { int, micros, type DbInt } from './numbers.js';
import type { StagedRow } from '../../core/notify/staged-refusal.js';
import type {
  DeliveryAttempt,
  DeliveryQuery,
  DeliveryRecord,
  DeliveryState,
  DestinationKind,
  NotifyDestination,
  PostedMessage,
} from '../notify-ports.js';

/** A notify_destinations row as both drivers return it. */
export interface DestinationRow {
  tenant_id: string;
  id: string;
  kind: DestinationKind;
  url: string;
  events: string;
  secret_name: string;
  enabled: number | string | bigint;
  disabled_reason: string | null;
  created_at: string;
  settings: string;
  remind_after_seconds: number | string | bigint | null;
  escalate_to: string | null;
}

export const DESTINATION_COLUMNS =
  'tenant_id, id, kind, url, events, secret_name, enabled, disabled_reason, created_at, settings, remind_after_seconds, escalate_to';

export function toDestination(r: DestinationRow): NotifyDestination {
  return {
    tenantId: r.tenant_id,
    id: r.id,
    kind: r.kind,
    url: r.url,
    events: JSON.parse(r.events) as string[],
    secretName: r.secret_name,
    enabled: Number(r.enabled) === 1,
    disabledReason: r.disabled_reason,
    createdAt: r.created_at,
    settings: JSON.parse(r.settings) as Record<string, unknown>,
    remindAfterSeconds: r.remind_after_seconds === null ? null : Number(r.remind_after_seconds),
    escalateTo: r.escalate_to,
  };
}

/** The values of a destination's row, in DESTINATION_COLUMNS order. */
export const destinationValues = (d: NotifyDestination): (string | number | null)[] => [
  d.tenantId,
  d.id,
  d.kind,
  d.url,
  JSON.stringify(d.events),
  d.secretName,
  d.enabled ? 1 : 0,
  d.disabledReason,
  d.createdAt,
  JSON.stringify(d.settings),
  d.remindAfterSeconds,
  d.escalateTo,
];

/** A notify_messages row as both drivers return it. */
export interface MessageRow {
  tenant_id: string;
  destination_id: string;
  approval_id: string;
  target: string;
  message_id: string;
  event_id: string;
  posted_at: string;
}

export const MESSAGE_COLUMNS =
  'tenant_id, destination_id, approval_id, target, message_id, event_id, posted_at';

export const toMessage = (r: MessageRow): PostedMessage => ({
  tenantId: r.tenant_id,
  destinationId: r.destination_id,
  approvalId: r.approval_id,
  target: r.target,
  messageId: r.message_id,
  eventId: r.event_id,
  postedAt: r.posted_at,
});

export const messageValues = (m: PostedMessage): string[] => [
  m.tenantId,
  m.destinationId,
  m.approvalId,
  m.target,
  m.messageId,
  m.eventId,
  m.postedAt,
];

export interface EventRow {
  tenant_id: string;
  id: string;
  type: string;
  timestamp: string;
  data: string;
}

export function toEvent(r: EventRow): NotifyEvent {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    type: r.type as NotifyEvent['type'],
    timestamp: r.timestamp,
    data: JSON.parse(r.data) as NotifyEvent['data'],
  };
}

export interface DeliveryRow {
  tenant_id: string;
  event_id: string;
  destination_id: string;
  event_type: string;
  state: DeliveryState;
  attempts: number | string;
  next_attempt_at: string | null;
  last_status: number | string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

export const DELIVERY_COLUMNS = `tenant_id, event_id, destination_id, event_type, state, attempts, next_attempt_at,
  last_status, last_error, created_at, updated_at, delivered_at`;

export function toDelivery(r: DeliveryRow): DeliveryRecord {
  return {
    tenantId: r.tenant_id,
    eventId: r.event_id,
    destinationId: r.destination_id,
    eventType: r.event_type,
    state: r.state,
    attempts: Number(r.attempts),
    nextAttemptAt: r.next_attempt_at,
    lastStatus: r.last_status === null ? null : Number(r.last_status),
    lastError: r.last_error,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deliveredAt: r.delivered_at,
  };
}

/** A claimed delivery with its event and destination, read in one join (columns prefixed). */
export type DueRow = DeliveryRow & { [K in keyof EventRow as `e_${K}`]: EventRow[K] } & {
  [K in keyof DestinationRow as `d_${K}`]: DestinationRow[K];
};

export const DUE_SELECT = `SELECT l.tenant_id, l.event_id, l.destination_id, l.event_type, l.state, l.attempts,
    l.next_attempt_at, l.last_status, l.last_error, l.created_at, l.updated_at, l.delivered_at,
    e.tenant_id AS e_tenant_id, e.id AS e_id, e.type AS e_type, e.timestamp AS e_timestamp, e.data AS e_data,
    d.tenant_id AS d_tenant_id, d.id AS d_id, d.kind AS d_kind, d.url AS d_url, d.events AS d_events,
    d.secret_name AS d_secret_name, d.enabled AS d_enabled, d.disabled_reason AS d_disabled_reason,
    d.created_at AS d_created_at, d.settings AS d_settings,
    d.remind_after_seconds AS d_remind_after_seconds, d.escalate_to AS d_escalate_to
  FROM notify_deliveries l
  JOIN notify_events e ON e.tenant_id = l.tenant_id AND e.id = l.event_id
  JOIN notify_destinations d ON d.tenant_id = l.tenant_id AND d.id = l.destination_id`;

export function toDue(r: DueRow) {
  return {
    delivery: toDelivery(r),
    event: toEvent({
      tenant_id: r.e_tenant_id,
      id: r.e_id,
      type: r.e_type,
      timestamp: r.e_timestamp,
      data: r.e_data,
    }),
    destination: toDestination({
      tenant_id: r.d_tenant_id,
      id: r.d_id,
      kind: r.d_kind,
      url: r.d_url,
      events: r.d_events,
      secret_name: r.d_secret_name,
      enabled: r.d_enabled,
      disabled_reason: r.d_disabled_reason,
      created_at: r.d_created_at,
      settings: r.d_settings,
      remind_after_seconds: r.d_remind_after_seconds,
      escalate_to: r.d_escalate_to,
    }),
  };
}

/** The values of RECORD_ATTEMPT, in its order: the change, then the lease that must still hold. */
export const attemptValues = (a: DeliveryAttempt, change: AttemptChange): (string | number | null)[] => [
  change.state,
  change.nextAttemptAt,
  a.status,
  a.error,
  a.at,
  change.deliveredAt,
  a.tenantId,
  a.eventId,
  a.destinationId,
  a.owner,
  a.at,
];

/** A staged refusal row joined with its intent (notify-sql.ts `STAGED`). */
export interface StagedDbRow {
  seq: DbInt;
  tenant_id: string;
  event_id: string;
  destination_id: string;
  timestamp: string;
  intent_id: string;
  i_id: string | null;
  receipt_id: string | null;
  task_id: string | null;
  step: string | null;
  actor_id: string | null;
  capability: string | null;
  action: string | null;
  code: string | null;
  reason: string | null;
  amount_micros: string | null;
  request_digest: string | null;
}

export function toStaged(r: StagedDbRow): StagedRow {
  return {
    seq: int(r.seq),
    tenantId: r.tenant_id,
    eventId: r.event_id,
    destinationId: r.destination_id,
    timestamp: r.timestamp,
    intentId: r.intent_id,
    intent:
      r.i_id === null
        ? undefined
        : {
            receiptId: r.receipt_id!,
            taskId: r.task_id!,
            step: r.step!,
            actorId: r.actor_id!,
            capability: r.capability!,
            action: r.action!,
            code: r.code,
            reason: r.reason,
            amountMicros: micros(r.amount_micros!),
            requestDigest: r.request_digest!,
          },
  };
}

/** The values of a delivery page's query (notify-sql.ts `DELIVERY_PAGE`), in order. */
export function pageValues(tenantId: string, q: DeliveryQuery): (string | number | null)[] {
  return [
    tenantId,
    q.state ?? null,
    q.state ?? null,
    q.destinationId ?? null,
    q.destinationId ?? null,
    q.before?.createdAt ?? null,
    q.before?.createdAt ?? null,
    q.before?.eventId ?? null,
    q.before?.destinationId ?? null,
    q.limit,
  ];
}

const newestFirst = (a: DeliveryRow, b: DeliveryRow): number =>
  cmp(b.created_at, a.created_at) || cmp(b.event_id, a.event_id) || cmp(b.destination_id, a.destination_id);
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * One page from the deliveries' page and the staged refusals' page (each already the newest
 * `limit` of its own), newest first: a staged refusal lists as the pending delivery it is.
 */
export function newestPage(
  deliveries: DeliveryRow[],
  staged: DeliveryRow[],
  limit: number,
): DeliveryRecord[] {
  const rows = staged.length === 0 ? deliveries : [...deliveries, ...staged].sort(newestFirst);
  return rows.slice(0, limit).map(toDelivery);
}
