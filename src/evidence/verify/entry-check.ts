import { bytesEqual } from '../bytes.js';
import { chainNext } from '../chain.js';
import { entryLeaf } from '../entry.js';
import { asHash, asSafeInteger, asString } from './field-readers.js';
import type { DecodedLine } from './line-decoder.js';
import type { VerifierState } from './state.js';

/** Stand-in for a leaf that is neither recomputable nor written; its entry already failed. */
const UNKNOWN_LEAF = new Uint8Array(32);

/**
 * One entry line (§3, §4, §5, §7): tenant, sequence, leaf, chain, then into the tree.
 * The chain and the tree take the recomputed leaf (leaf_i is defined as H(preimage_i));
 * only a redacted entry's leaf is taken as written.
 */
export function checkEntry(state: VerifierState, line: DecodedLine): void {
  const { sink } = state;
  const at = line.number;
  const entry = line.value;
  state.counts.entries += 1;

  const tenantId = asString(entry.tenant_id);
  if (tenantId !== undefined && state.header?.tenantId !== undefined && tenantId !== state.header.tenantId) {
    sink.add(
      'tenant_mismatch',
      at,
      `entry tenant_id ${JSON.stringify(tenantId)} is not the header's ${JSON.stringify(state.header.tenantId)}`,
    );
  }

  const sequence = checkSequence(state, at, asSafeInteger(entry.sequence));
  const role = state.redactions.observe(entry, sequence, at);

  const written = asHash(entry.leaf);
  let leaf = written;
  if (role !== 'redacted') {
    const recomputed = recomputeLeaf(state, entry);
    if (recomputed !== undefined && written !== undefined && !bytesEqual(recomputed, written)) {
      sink.add('leaf_mismatch', at, `leaf of entry ${sequence ?? '?'} is not H(preimage)`);
    }
    leaf = recomputed ?? written;
  }
  leaf ??= UNKNOWN_LEAF;
  state.frontier.append(leaf);

  const writtenChain = asHash(entry.chain_hash);
  if (state.chain !== undefined) {
    const expected = chainNext(state.chain, leaf, state.crypto.sha256);
    if (writtenChain !== undefined && !bytesEqual(expected, writtenChain)) {
      sink.add(
        'chain_mismatch',
        at,
        `chain_hash of entry ${sequence ?? '?'} does not follow from the previous chain hash and this leaf`,
      );
    }
    // Resynchronise on the written value, so one bad line is reported once, not for every line after it.
    state.chain = writtenChain ?? expected;
  } else {
    state.chain = writtenChain;
  }
  state.previousKind = 'entry';
}

/** §3: sequences run 1, 2, …, n. After a break, continue from the value found, so a dropped line is one finding. */
function checkSequence(state: VerifierState, at: number, sequence: number | undefined): number | undefined {
  const expected = state.nextSequence;
  if (sequence === undefined) {
    state.nextSequence += 1;
    return undefined;
  }
  if (sequence > expected) {
    state.sink.add(
      'sequence_gap',
      at,
      `entry sequence ${sequence}, expected ${expected}: ${sequence - expected} missing`,
    );
  } else if (sequence < expected) {
    state.sink.add(
      'sequence_out_of_order',
      at,
      `entry sequence ${sequence}, expected ${expected}: repeated or out of order`,
    );
  }
  state.nextSequence = sequence + 1;
  return sequence;
}

function recomputeLeaf(state: VerifierState, entry: object): Uint8Array | undefined {
  try {
    return entryLeaf(entry, state.crypto.sha256);
  } catch {
    return undefined; // a lone surrogate: the line has no canonical form, already reported
  }
}
