import { asObject, asString, type JsonObject } from './field-readers.js';
import type { TimestampStatus } from './timestamp-check.js';

/**
 * What a redacted receipt cannot bind: the tombstone (its redaction record is not in the
 * proof), and so the times §7 sets to its removed_at, in the entry and in the receipt.
 */
const REDACTED_UNBOUND = [
  'occurred_at',
  'linked_at',
  'proof.entry.tombstone',
  'proof.entry.occurred_at',
  'proof.entry.linked_at',
];

/** The entry field no receipt proof binds: the chain is an export's, a proof goes through the tree. */
const CHAIN_HASH = 'proof.entry.chain_hash';

/**
 * The members of a proof that no check binds, by path, for the report's `unverified`: the
 * chain hash; a redacted entry's tombstone and times; a timestamp that did not verify under
 * --tsa-cert roots (a noop placeholder, or a token nobody checked) and, when it did, its
 * authority and the exporter's `verified` note; a pinned witness's key_holder (a
 * declaration, §6.2); and every cosignature whose witness id has no pinned key.
 */
export function unboundProofFields(
  anchor: JsonObject,
  redacted: boolean,
  timestamp: TimestampStatus,
  pins: ReadonlyMap<string, unknown>,
): string[] {
  const out = [...(redacted ? REDACTED_UNBOUND : []), CHAIN_HASH];
  const stamp = asObject(anchor.timestamp);
  if (stamp !== undefined && timestamp !== 'verified') out.push('proof.anchor.timestamp');
  if (stamp !== undefined && timestamp === 'verified') {
    out.push('proof.anchor.timestamp.authority');
    if (Object.hasOwn(stamp, 'verified')) out.push('proof.anchor.timestamp.verified');
  }
  if (Array.isArray(anchor.witnesses)) {
    anchor.witnesses.forEach((item: unknown, i) => {
      const w = asObject(item);
      const id = asString(w?.witness_id);
      if (id === undefined || !pins.has(id)) out.push(`proof.anchor.witnesses[${i}]`);
      else if (w !== undefined && Object.hasOwn(w, 'key_holder'))
        out.push(`proof.anchor.witnesses[${i}].key_holder`);
    });
  }
  return out;
}
