import type { EntryLine, Tombstone } from './export-line.js';

/** The capability of the entry that journals a redaction (evidence-format.md §7). */
export const REDACTION_CAPABILITY = 'svc.journal.redact';

/**
 * An entry line redacted in place under `tombstone`: content fields emptied; identity,
 * timing, record hash, leaf and chain hash kept so the chain and every signed root still
 * verify. The caller journals the redaction record carrying the same tombstone.
 */
export function redactEntry(entry: EntryLine, tombstone: Tombstone): EntryLine {
  if (entry.sequence < tombstone.from_sequence || entry.sequence > tombstone.to_sequence) {
    throw new RangeError(`entry ${entry.sequence} is outside the tombstone's range`);
  }
  return {
    type: 'entry',
    tenant_id: entry.tenant_id,
    sequence: entry.sequence,
    record_hash: entry.record_hash,
    intent_id: '',
    actor_id: '',
    capability: '',
    tier: 0,
    allowed: false,
    grant_id: '',
    amount_usd: 0,
    occurred_at: entry.occurred_at,
    linked_at: entry.linked_at,
    tombstone: { ...tombstone },
    chain_hash: entry.chain_hash,
    leaf: entry.leaf,
  };
}
