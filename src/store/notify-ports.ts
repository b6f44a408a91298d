import type { NotifyEvent } from '../core/notify/event.js';
import type { OutboxOps } from '../core/notify/outbox.js';
import type { UseCase } from '../core/use-case.js';

/**
 * Notification destinations, the outbox and its deliveries (issue 26). The CONTRACT between
 * the store adapters, the core use cases that emit events and the daemon's delivery loop.
 */
export { DESTINATION_KINDS, type DestinationKind } from '../core/notify/destination-settings.js';
import type { DestinationKind } from '../core/notify/destination-settings.js';

export interface NotifyDestination {
  tenantId: string;
  /** a slug, unique in the tenant */
  id: string;
  kind: DestinationKind;
  /** webhook: the https URL (http only to a loopback address, when the daemon allows it) */
  url: string;
  /** subscription patterns (core/notify/event.ts `checkEventPattern`) */
  events: string[];
  /** the secret store's name for its secret(s) (`notify.<id>`), sealed like any secret */
  secretName: string;
  enabled: boolean;
  /** why it was disabled (a receiver answered 410 Gone, an administrator) */
  disabledReason: string | null;
  createdAt: string;
  /**
   * What the kind needs besides the URL, never a secret: checked and read by
   * core/notify/destination-settings.ts (`chatSettings`, `collabSettings`, `emailSettings`);
   * `{}` for a webhook.
   */
  settings: Readonly<Record<string, unknown>>;
  /** an approval still pending this long after it was requested is sent again (reminders) */
  remindAfterSeconds: number | null;
  /** the reminder also goes to this destination of the tenant (escalation) */
  escalateTo: string | null;
}

/**
 * A message a chat or collab destination posted for an approval (the channel's message `ts`,
 * the conversation's activity id), remembered so that the message can be turned into the
 * outcome once the approval is decided from any channel.
 */
export interface PostedMessage {
  tenantId: string;
  destinationId: string;
  approvalId: string;
  /** where it was posted: the chat channel or user id, the collab conversation id */
  target: string;
  /** the platform's id of the message in `target` */
  messageId: string;
  /** the event whose delivery posted it */
  eventId: string;
  postedAt: string;
}

/** A human who may decide an approval and whom a chat destination can reach directly. */
export interface ChatApprover {
  actorId: string;
  /** the actor's registered chat user id (`--chat-user-id`) */
  chatUserId: string;
}

export type DeliveryState = 'pending' | 'delivered' | 'dead' | 'disabled';

/** One event for one destination: the unit that is attempted, retried and dead-lettered. */
export interface DeliveryRecord {
  tenantId: string;
  eventId: string;
  destinationId: string;
  eventType: string;
  state: DeliveryState;
  attempts: number;
  /** when it is next due (pending only) */
  nextAttemptAt: string | null;
  /** the receiver's last HTTP status, if it answered */
  lastStatus: number | null;
  /** a short coded reason of the last failure (never a response body, token or secret) */
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
}

export interface DueDelivery {
  delivery: DeliveryRecord;
  event: NotifyEvent;
  destination: NotifyDestination;
}

/** An attempt's outcome, recorded only while the recorder still holds the lease. */
export interface DeliveryAttempt {
  tenantId: string;
  eventId: string;
  destinationId: string;
  /** the lease owner that claimed it */
  owner: string;
  at: string;
  /** `gone` (410) also disables the destination; `dead` ends the retries */
  outcome: 'delivered' | 'retry' | 'dead' | 'gone';
  status: number | null;
  error: string | null;
  /** `retry` only */
  nextAttemptAt: string | null;
}

export interface DeliveryQuery {
  state?: DeliveryState;
  destinationId?: string;
  limit: number;
  /**
   * keyset cursor: the deliveries after this one in the order listed (newest first). The
   * destination is part of it: one event goes to several destinations, and a page may end
   * between them.
   */
  before?: { createdAt: string; eventId: string; destinationId: string };
}

export interface NotifyCounts {
  /** deliveries waiting (due or not) */
  pending: number;
  dead: number;
  /** destinations disabled (410 Gone or by an administrator) */
  disabled: number;
}

export interface NotifyRepo {
  /** A new destination; an existing id in the tenant is a coded `already_exists`. */
  addDestination(d: NotifyDestination): Promise<void>;
  destinations(tenantId: string): Promise<NotifyDestination[]>;
  destination(tenantId: string, id: string): Promise<NotifyDestination | undefined>;
  /** False when there is none; its pending deliveries end as `disabled`. */
  removeDestination(tenantId: string, id: string): Promise<boolean>;
  /**
   * Up to `limit` pending deliveries due at `now` that no live lease holds, each leased to
   * `owner` until `leaseUntil` in the same transaction (PostgreSQL: `FOR UPDATE SKIP
   * LOCKED`), so several daemons deliver each event once in the normal case and a daemon
   * killed mid-delivery leaves it to another once the lease runs out. Staged refusals
   * (core/notify/staged-refusal.ts) are fanned out first in the same transaction, up to
   * `limit` of them, so what a claim sends was fanned out at the pace of the sends.
   */
  claimDue(now: string, owner: string, leaseUntil: string, limit: number): Promise<DueDelivery[]>;
  /** Record an attempt; false (and nothing written) when `owner` no longer holds the lease. */
  recordAttempt(a: DeliveryAttempt): Promise<boolean>;
  deliveries(tenantId: string, q: DeliveryQuery): Promise<DeliveryRecord[]>;
  /** A dead (or delivered) delivery made pending and due now, same event id; false if none. */
  redeliver(tenantId: string, eventId: string, destinationId: string, now: string): Promise<boolean>;
  /** Across the deployment (readiness, metrics), or for one tenant (the console). */
  counts(tenantId?: string): Promise<NotifyCounts>;
  /**
   * `approval.expired` (core/notify/approval-expiry.ts): announce up to `limit` approvals that
   * expired pending and were not yet announced, each marked and its event written in one
   * transaction; how many were marked. The daemon's timer calls it until it answers 0.
   */
  announceExpired(now: Date, limit: number): Promise<number>;
  /**
   * `approval.reminder` (core/notify/approval-reminder.ts): up to `limit` (approval,
   * destination) pairs due a reminder at `now` and not yet reminded, each marked and its
   * event (and the escalation's) written in one transaction; how many pairs were marked. The
   * daemon's timer calls it until it answers less than `limit`.
   */
  announceReminders(now: Date, limit: number): Promise<number>;
  /**
   * Drop finished deliveries (dead letters, delivered, disabled) last changed before
   * `before` (kept 30 days), and the events left with none; how many deliveries.
   */
  purgeFinished(before: string): Promise<number>;
  /** Remember a posted message; the same (destination, approval, target, message) twice is one. */
  saveMessage(m: PostedMessage): Promise<void>;
  /** The messages a destination posted for an approval, oldest first. */
  messages(tenantId: string, destinationId: string, approvalId: string): Promise<PostedMessage[]>;
  /**
   * The humans with a chat user id who may decide an approval of `capability`
   * (core/approval.ts `decisionRefusal`: the approver role, or named by the capability),
   * never `requesterId`; ordered by actor id.
   */
  chatApprovers(tenantId: string, capability: string, requesterId: string): Promise<ChatApprover[]>;
  /**
   * Whether a delivery that posts a message for the approval (`approval.requested`,
   * `approval.reminder`) to the destination is still pending: its outcome waits for it.
   */
  postPending(tenantId: string, destinationId: string, approvalId: string): Promise<boolean>;
  /**
   * An event that reports no stored change (`attestation.failed`: the anchor stands without
   * its attestation), written by its outbox use case in a transaction of its own.
   */
  runOutbox<R>(useCase: UseCase<OutboxOps, R>): Promise<R>;
  /**
   * `listener` is called after this process commits a transaction that wrote an event (on a
   * later turn, never inside the transaction or on the committer's path), so the delivery
   * loop need not wait for its poll; returns how to stop listening. Other processes' commits
   * are not seen here: their own loop, or this one's poll, takes them.
   */
  onEventsCommitted(listener: () => void): () => void;
}
