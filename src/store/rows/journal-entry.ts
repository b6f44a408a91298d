import { formatUsd } from '../../core/money.js';
import { publishReceipt, type PublishedReceipt } from '../../core/receipt.js';
import type { EntryLine, Tombstone } from '../../evidence/export-line.js';
import { micros, type DbInt } from './numbers.js';

/** The journal columns an entry line is made of, as both drivers return them. */
export interface EntryRow {
  tenant_id: string;
  sequence: DbInt;
  record_hash: string;
  intent_id: string;
  actor_id: string;
  capability: string;
  tier: DbInt;
  allowed: DbInt;
  grant_id: string;
  amount_micros: DbInt;
  occurred_at: string;
  linked_at: string;
  tombstone: string | null;
  chain_hash: string;
  leaf: string;
}

export function entryLineOf(r: EntryRow): EntryLine {
  const line: EntryLine = {
    type: 'entry',
    tenant_id: r.tenant_id,
    sequence: Number(r.sequence),
    record_hash: r.record_hash,
    intent_id: r.intent_id,
    actor_id: r.actor_id,
    capability: r.capability,
    tier: Number(r.tier),
    allowed: Number(r.allowed) === 1,
    grant_id: r.grant_id,
    amount_usd: formatUsd(micros(r.amount_micros)),
    occurred_at: r.occurred_at,
    linked_at: r.linked_at,
    chain_hash: r.chain_hash,
    leaf: r.leaf,
  };
  if (r.tombstone !== null) line.tombstone = JSON.parse(r.tombstone) as Tombstone;
  return line;
}

/** The journal columns a published receipt is made of, as both drivers return them. */
export interface ReceiptRow {
  receipt_id: string;
  sequence: DbInt;
  kind: string;
  task_id: string | null;
  intent_id: string;
  actor_id: string;
  capability: string;
  allowed: DbInt;
  grant_id: string;
  amount_micros: DbInt;
  occurred_at: string;
  linked_at: string;
  record_hash: string;
  leaf: string;
  record: string;
  tombstone: string | null;
  /** from `decision_inputs`: null where the record has none */
  policy_version: DbInt | null;
}

export function publish(r: ReceiptRow): PublishedReceipt {
  return publishReceipt({
    receiptId: r.receipt_id,
    sequence: Number(r.sequence),
    kind: r.kind,
    taskId: r.task_id,
    intentId: r.intent_id,
    actorId: r.actor_id,
    capability: r.capability,
    allowed: Number(r.allowed) === 1,
    grantId: r.grant_id,
    amountMicros: micros(r.amount_micros),
    occurredAt: r.occurred_at,
    linkedAt: r.linked_at,
    recordHash: r.record_hash,
    leaf: r.leaf,
    record: r.record,
    tombstone: r.tombstone,
    policyVersion: r.policy_version === null ? null : Number(r.policy_version),
  });
}
