import { formatUsd, type Micros } from './money.js';

/** A journal row as stored: the entry-line fields and the full internal record. */
export interface JournalRow {
  receiptId: string;
  sequence: number;
  kind: string;
  taskId: string | null;
  intentId: string;
  actorId: string;
  capability: string;
  allowed: boolean;
  grantId: string;
  amountMicros: Micros;
  occurredAt: string;
  /** when the entry was linked into the journal (its export line's linked_at) */
  linkedAt: string;
  recordHash: string;
  /** hex leaf of the entry: what an inclusion proof proves */
  leaf: string;
  /** canonical JSON of the full internal record */
  record: string;
  /**
   * JSON of a tombstone: on every row a redaction blanked, and on the redaction record
   * itself, which names the range it removed and is not redacted
   */
  tombstone: string | null;
  /** the version of the tenant policy that decided it, where one was recorded (decisions) */
  policyVersion?: number | null;
}

/** The published projection (interface-spec.md, Receipts): the record's private fields never appear. */
export interface PublishedReceipt {
  receipt_id: string;
  sequence: number;
  kind: string;
  intent_id: string;
  task_id: string | null;
  actor_id: string;
  capability: string;
  action: string | null;
  intent: string | null;
  /** the effect key's step of a decision or execution: how a client reconciles an unknown outcome */
  effect_key_step: string | null;
  outcome: string;
  allowed: boolean;
  code: string | null;
  reason: string | null;
  remedy: string | null;
  amount_usd: number;
  grant_id: string | null;
  approval_id: string | null;
  effect: Record<string, unknown> | null;
  effect_id: string | null;
  observed: boolean;
  occurred_at: string;
  linked_at: string;
  record_hash: string;
  leaf: string;
  redacted: boolean;
  /** the tenant policy's version that decided it; null: not a decision, not decided by the policy step, or decided before versions were recorded */
  policy_version: number | null;
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const object = (v: unknown): Record<string, unknown> | null =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/**
 * Build the receipt by naming each published field: an allow-list, so a private field
 * added to the record later (correlation ids, request digests, credentials) stays private
 * without anyone remembering to strip it. A redacted row publishes only what its export
 * entry line still carries.
 */
export function publishReceipt(row: JournalRow): PublishedReceipt {
  const redacted = isRedacted(row);
  let record: Record<string, unknown> = {};
  if (!redacted) {
    try {
      record = object(JSON.parse(row.record)) ?? {};
    } catch {
      // A record that does not parse publishes no content; the entry-line fields still stand.
    }
  }
  return {
    receipt_id: row.receiptId,
    sequence: row.sequence,
    kind: row.kind,
    intent_id: row.intentId,
    task_id: row.taskId,
    actor_id: row.actorId,
    capability: row.capability,
    action: text(record.action),
    intent: text(record.intent),
    effect_key_step: text(record.effect_key_step),
    outcome: redacted ? 'redacted' : (text(record.outcome) ?? (row.allowed ? 'allowed' : 'refused')),
    allowed: row.allowed,
    code: text(record.code),
    reason: text(record.reason),
    remedy: text(record.remedy),
    amount_usd: formatUsd(row.amountMicros),
    grant_id: row.grantId === '' ? null : row.grantId,
    approval_id: text(record.approval_id),
    effect: object(record.effect),
    effect_id: text(record.effect_id),
    observed: record.observed === true,
    occurred_at: row.occurredAt,
    linked_at: row.linkedAt,
    record_hash: row.recordHash,
    leaf: row.leaf,
    redacted,
    policy_version: row.policyVersion ?? null,
  };
}

/** A row is redacted when its own sequence lies in its tombstone's range; one that cannot be read counts as redacted. */
function isRedacted(row: Pick<JournalRow, 'sequence' | 'tombstone'>): boolean {
  if (row.tombstone === null) return false;
  try {
    const t = object(JSON.parse(row.tombstone));
    const from = t?.from_sequence;
    const to = t?.to_sequence;
    if (typeof from !== 'number' || typeof to !== 'number') return true;
    return row.sequence >= from && row.sequence <= to;
  } catch {
    return true;
  }
}
