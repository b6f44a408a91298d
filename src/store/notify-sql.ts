/**
 * The notify adapters' SQL text that both dialects share (parameters `?` in SQLite, `$n` in
 * PostgreSQL are filled in by each adapter's `sql` helper in order of appearance).
 */
export const INSERT_EVENT =
  'INSERT INTO notify_events (tenant_id, id, type, timestamp, data) VALUES (?, ?, ?, ?, ?)';

export const INSERT_DELIVERY = `INSERT INTO notify_deliveries (tenant_id, event_id, destination_id, event_type, state,
    attempts, next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)`;

/** Pending deliveries whose destination went away end `disabled`, with why. */
export const DISABLE_PENDING = `UPDATE notify_deliveries SET state = 'disabled', next_attempt_at = NULL,
    lease_owner = NULL, lease_until = NULL, last_error = ?, updated_at = ?
  WHERE tenant_id = ? AND destination_id = ? AND state = 'pending'`;

/** The guarded write of an attempt: only while `owner` holds an unexpired lease on a pending delivery. */
export const RECORD_ATTEMPT = `UPDATE notify_deliveries SET state = ?, attempts = attempts + 1, next_attempt_at = ?,
    last_status = ?, last_error = ?, lease_owner = NULL, lease_until = NULL, updated_at = ?, delivered_at = ?
  WHERE tenant_id = ? AND event_id = ? AND destination_id = ? AND state = 'pending'
    AND lease_owner = ? AND lease_until > ?`;

export const DISABLE_DESTINATION = `UPDATE notify_destinations SET enabled = 0, disabled_reason = ?
  WHERE tenant_id = ? AND id = ?`;

/** A dead or delivered delivery made pending and due now, while its destination is enabled. */
export const REDELIVER = `UPDATE notify_deliveries SET state = 'pending', attempts = 0, next_attempt_at = ?,
    lease_owner = NULL, lease_until = NULL, last_error = NULL, last_status = NULL, updated_at = ?, delivered_at = NULL
  WHERE tenant_id = ? AND event_id = ? AND destination_id = ? AND state IN ('dead', 'delivered')
    AND EXISTS (SELECT 1 FROM notify_destinations d
      WHERE d.tenant_id = notify_deliveries.tenant_id AND d.id = notify_deliveries.destination_id AND d.enabled = 1)`;

/** A staged refusal delivery (core/notify/staged-refusal.ts) counts as the pending delivery it stands for. */
export const COUNTS = `SELECT
    (SELECT count(*) FROM notify_deliveries WHERE state = 'pending')
      + (SELECT count(*) FROM notify_staged) AS pending,
    (SELECT count(*) FROM notify_deliveries WHERE state = 'dead') AS dead,
    (SELECT count(*) FROM notify_destinations WHERE enabled = 0) AS disabled`;

/** The same counts for one tenant (the console's notifications page). */
export const TENANT_COUNTS = `SELECT
    (SELECT count(*) FROM notify_deliveries WHERE tenant_id = ? AND state = 'pending')
      + (SELECT count(*) FROM notify_staged WHERE tenant_id = ?) AS pending,
    (SELECT count(*) FROM notify_deliveries WHERE tenant_id = ? AND state = 'dead') AS dead,
    (SELECT count(*) FROM notify_destinations WHERE tenant_id = ? AND enabled = 0) AS disabled`;

/**
 * Finished deliveries (dead letters, delivered, disabled) last changed before a time: the
 * outbox keeps them 30 days, so its tables do not grow with traffic forever.
 */
export const PURGE_FINISHED =
  "DELETE FROM notify_deliveries WHERE state IN ('dead', 'delivered', 'disabled') AND updated_at < ?";
/** Events left with no delivery (their dead letters purged) go with them. */
export const PURGE_ORPHAN_EVENTS = `DELETE FROM notify_events WHERE NOT EXISTS (SELECT 1 FROM notify_deliveries l
  WHERE l.tenant_id = notify_events.tenant_id AND l.event_id = notify_events.id)`;

/** A tenant's deliveries, newest first, with the optional filters and keyset cursor. */
export const DELIVERY_PAGE = `WHERE tenant_id = ? AND (CAST(? AS TEXT) IS NULL OR state = ?)
  AND (CAST(? AS TEXT) IS NULL OR destination_id = ?)
  AND (CAST(? AS TEXT) IS NULL OR (created_at, event_id, destination_id) < (?, ?, ?))
  ORDER BY created_at DESC, event_id DESC, destination_id DESC LIMIT ?`;

/** A task's budget threshold announced once: the primary key decides. */
export const MARK_BUDGET = `INSERT INTO notify_budget_marks (tenant_id, task_id, percent, event_id) VALUES (?, ?, ?, ?)
  ON CONFLICT DO NOTHING`;

/** The guarded mark of an announced expiry. */
export const MARK_EXPIRY = `UPDATE approvals SET expiry_announced = 1
  WHERE tenant_id = ? AND id = ? AND status = 'pending' AND expires_at <= ? AND expiry_announced = 0`;

/** Destinations are part of what the decision pipeline caches by registry version. */
export const BUMP_REGISTRY = 'UPDATE tenants SET registry_version = registry_version + 1 WHERE id = ?';

/** `?` placeholders as PostgreSQL's `$1 … $n`. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** A destination's posted messages and reminders go with it. */
export const FORGET_MESSAGES = 'DELETE FROM notify_messages WHERE tenant_id = ? AND destination_id = ?';
export const FORGET_REMINDERS = 'DELETE FROM notify_reminders WHERE tenant_id = ? AND destination_id = ?';

export const SAVE_MESSAGE = `INSERT INTO notify_messages (tenant_id, destination_id, approval_id, target, message_id, event_id, posted_at)
  VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;

export const MESSAGES_OF = `SELECT tenant_id, destination_id, approval_id, target, message_id, event_id, posted_at
  FROM notify_messages WHERE tenant_id = ? AND destination_id = ? AND approval_id = ?
  ORDER BY posted_at, target, message_id`;

/** One reminder of an approval to a destination; the primary key keeps it once. */
export const MARK_REMINDER = `INSERT INTO notify_reminders (tenant_id, approval_id, destination_id, event_id, sent_at)
  VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;

export const REMINDED_OF =
  'SELECT destination_id FROM notify_reminders WHERE tenant_id = ? AND approval_id = ?';

/**
 * The reminder sweep's pairs besides the approval's columns: the destination's subscription
 * is prefiltered on the three patterns that take `approval.requested` (`*`, `approval.*`,
 * the type itself, as core/notify/event.ts `typeMatches` reads them; the use case checks
 * again), so a destination that reminds but never takes a request cannot fill every batch.
 * A destination reminds only of approvals requested since it was added: it was sent those.
 */
export const REMINDER_PAIRS = `JOIN notify_destinations d ON d.tenant_id = a.tenant_id
  WHERE a.status = 'pending' AND a.expires_at > ? AND d.enabled = 1 AND d.remind_after_seconds IS NOT NULL
    AND a.created_at >= d.created_at
    AND (d.events LIKE '%"*"%' OR d.events LIKE '%"approval.*"%' OR d.events LIKE '%"approval.requested"%')
    AND NOT EXISTS (SELECT 1 FROM notify_reminders r
      WHERE r.tenant_id = a.tenant_id AND r.approval_id = a.id AND r.destination_id = d.id)`;

/** A refusal's delivery staged by the decision (core/notify/staged-refusal.ts). */
export const STAGE_REFUSAL =
  'INSERT INTO notify_staged (tenant_id, event_id, destination_id, timestamp, intent_id) VALUES (?, ?, ?, ?, ?)';

/** The oldest staged rows with the refused intent each names (amounts as text: exact in both drivers). */
export const STAGED = `SELECT s.seq, s.tenant_id, s.event_id, s.destination_id, s.timestamp, s.intent_id,
    i.id AS i_id, i.receipt_id, i.task_id, i.step, i.actor_id, i.capability, i.action, i.code, i.reason,
    CAST(i.amount_micros AS TEXT) AS amount_micros, i.request_digest
  FROM notify_staged s LEFT JOIN intents i ON i.tenant_id = s.tenant_id AND i.id = s.intent_id
  ORDER BY s.seq LIMIT ?`;

export const INSERT_EVENT_ONCE = `${INSERT_EVENT} ON CONFLICT DO NOTHING`;

/** A delivery whose destination was removed before its refusal was fanned out. */
export const INSERT_DISABLED_DELIVERY = `INSERT INTO notify_deliveries (tenant_id, event_id, destination_id, event_type, state,
    attempts, next_attempt_at, last_error, created_at, updated_at) VALUES (?, ?, ?, ?, 'disabled', 0, NULL, ?, ?, ?)`;

export const DESTINATION_IDS = 'SELECT id FROM notify_destinations WHERE tenant_id = ?';

/** Staged rows read as the pending deliveries they stand for, filtered and paged as deliveries are. */
export const STAGED_PAGE = `SELECT * FROM (SELECT tenant_id, event_id, destination_id, 'decision.refused' AS event_type,
    'pending' AS state, 0 AS attempts, timestamp AS next_attempt_at, CAST(NULL AS INTEGER) AS last_status,
    CAST(NULL AS TEXT) AS last_error, timestamp AS created_at, timestamp AS updated_at,
    CAST(NULL AS TEXT) AS delivered_at FROM notify_staged) s ${DELIVERY_PAGE}`;
