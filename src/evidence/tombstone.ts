import type { EntryLine, Tombstone } from './export-line.js';

/** The capability of the entry that journals a redaction (evidence-format.md §7). */
export const REDACTION_CAPABILITY = 'svc.journal.redact';

/** A redacted entry's `record_hash` (evidence-format.md §7): it no longer commits to anything. */
export const REDACTED_RECORD_HASH = '0'.repeat(64);

/**
 * An entry line redacted in place under `tombstone` (evidence-format.md §7): content fields
 * emptied, `record_hash` zeroed, both times set to the tombstone's `removed_at`; tenant,
 * sequence, leaf and chain hash kept so the chain and every signed root still verify. Every
 * field is then fixed by the rule, so a verifier can refuse any edit of a redacted line. The
 * caller journals the redaction record carrying the same tombstone.
 */
export function redactEntry(entry: EntryLine, tombstone: Tombstone): EntryLine {
  if (entry.sequence < tombstone.from_sequence || entry.sequence > tombstone.to_sequence) {
    throw new RangeError(`entry ${entry.sequence} is outside the tombstone's range`);
  }
  return {
    type: 'entry',
    tenant_id: entry.tenant_id,
    sequence: entry.sequence,
    record_hash: REDACTED_RECORD_HASH,
    intent_id: '',
    actor_id: '',
    capability: '',
    tier: 0,
    allowed: false,
    grant_id: '',
    amount_usd: 0,
    occurred_at: tombstone.removed_at,
    linked_at: tombstone.removed_at,
    tombstone: { ...tombstone },
    chain_hash: entry.chain_hash,
    leaf: entry.leaf,
  };
}
