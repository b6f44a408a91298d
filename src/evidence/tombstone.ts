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

/**
 * The fields of an untrusted entry line, redacted under `tombstone`, that differ from what
 * `redactEntry` writes: section 7's fixed values, checked against this one definition by
 * every verifier (exports and receipts) rather than a copy of the rule. The four kept
 * fields (and the tombstone itself) are compared to themselves, so they never differ.
 * The caller has checked that the entry's sequence lies in the tombstone's range.
 */
export function redactionDeviations(
  entry: Record<string, unknown>,
  tombstone: Record<string, unknown>,
): string[] {
  const expected: Record<string, unknown> = {
    ...redactEntry(entry as unknown as EntryLine, tombstone as unknown as Tombstone),
  };
  return Object.keys(expected).filter((field) => !sameJson(entry[field], expected[field]));
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
