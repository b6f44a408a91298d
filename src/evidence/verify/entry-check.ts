import { bytesEqual } from '../bytes.js';
import { chainNext } from '../chain.js';
import type { EntryFacts } from './entry-facts.js';
import type { VerifierState } from './state.js';

/** Stand-in for a leaf that is neither recomputable nor written; its entry already failed. */
const UNKNOWN_LEAF = new Uint8Array(32);
/** What the redaction tracker sees of an entry without a tombstone. */
const NO_TOMBSTONE = {};

/**
 * One entry line (§3, §4, §5, §7): tenant, sequence, leaf, chain, then into the tree.
 * The chain and the tree take the recomputed leaf (leaf_i is defined as H(preimage_i));
 * only a redacted entry's leaf is taken as written.
 */
export function checkEntry(state: VerifierState, at: number, facts: EntryFacts): void {
  const { sink } = state;
  state.counts.entries += 1;

  const tenantId = facts.tenantId;
  if (tenantId !== undefined && state.header?.tenantId !== undefined && tenantId !== state.header.tenantId) {
    sink.add(
      'tenant_mismatch',
      at,
      `entry tenant_id ${JSON.stringify(tenantId)} is not the header's ${JSON.stringify(state.header.tenantId)}`,
    );
  }

  const sequence = checkSequence(state, at, facts.sequence);
  const role = state.redactions.observe(facts.tombstoned ?? NO_TOMBSTONE, sequence, at);

  const written = facts.leaf;
  let leaf = written;
  if (role !== 'redacted') {
    const recomputed = facts.recomputedLeaf;
    if (recomputed !== undefined && written !== undefined && !bytesEqual(recomputed, written)) {
      sink.add('leaf_mismatch', at, `leaf of entry ${sequence ?? '?'} is not H(preimage)`);
    }
    leaf = recomputed ?? written;
  }
  leaf ??= UNKNOWN_LEAF;
  state.frontier.append(leaf);

  const writtenChain = facts.chainHash;
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
