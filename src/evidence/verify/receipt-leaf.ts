import { bytesEqual } from '../bytes.js';
import type { Sha256 } from '../crypto-provider.js';
import { encodeHex } from '../encoding.js';
import { entryLeaf } from '../entry.js';
import { redactionDeviations } from '../tombstone.js';
import { asHash, asObject, asSafeInteger, type JsonObject } from './field-readers.js';
import type { FindingCollector } from './findings.js';

/**
 * The leaf a receipt's audit path must lead from. A plain entry's leaf is recomputed from
 * every field, so the preimage binds them all. A redacted entry (its tombstone covers its own
 * sequence) cannot be recomputed and its leaf is taken as written (§7); then every field but
 * the four kept must hold the fixed values (`redactionDeviations`, the one definition the
 * export verifier uses too), and a pass proves its position, not its content.
 */
export function receiptLeaf(
  entry: JsonObject,
  sink: FindingCollector,
  sha256: Sha256,
): { leaf: Uint8Array | undefined; redacted: boolean } {
  const written = asHash(entry.leaf);
  const tombstone = asObject(entry.tombstone);
  const sequence = asSafeInteger(entry.sequence);
  const from = asSafeInteger(tombstone?.from_sequence);
  const to = asSafeInteger(tombstone?.to_sequence);
  if (tombstone !== undefined && sequence !== undefined && from !== undefined && to !== undefined) {
    if (from < 1 || from > to) {
      sink.add(
        'tombstone_malformed',
        null,
        `tombstone range ${from}..${to} is not 1 <= from_sequence <= to_sequence`,
      );
    } else if (sequence < from) {
      sink.add(
        'tombstone_below_range',
        null,
        `entry ${sequence} carries a tombstone for ${from}..${to}, above itself`,
      );
    } else if (sequence <= to) {
      const leftIn = redactionDeviations(entry, tombstone);
      if (leftIn.length > 0) {
        sink.add(
          'redacted_content_present',
          null,
          `redacted entry ${sequence}: ${leftIn.join(', ')} not the value section 7 fixes (empty content, record_hash of 64 zeros, times equal to the tombstone's removed_at)`,
        );
      }
      return { leaf: written, redacted: true };
    }
  }
  let computed: Uint8Array;
  try {
    computed = entryLeaf(entry, sha256);
  } catch {
    sink.add('proof_malformed', null, 'the entry has no canonical form');
    return { leaf: undefined, redacted: false };
  }
  if (written === undefined || !bytesEqual(written, computed)) {
    sink.add('leaf_mismatch', null, `the entry leaf is not H(preimage) (${encodeHex(computed)})`);
  }
  return { leaf: computed, redacted: false };
}
