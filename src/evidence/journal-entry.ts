import { chainGenesis, chainNext } from './chain.js';
import { cjson } from './cjson.js';
import type { Sha256 } from './crypto-provider.js';
import { decodeHex, encodeHex, encodeUtf8 } from './encoding.js';
import { entryLeaf } from './entry.js';
import type { EntryLine } from './export-line.js';
import { logIdFor } from './log-id.js';
import { MerkleFrontier, type FrontierState } from './merkle-frontier.js';
import type { CompletedSubtree } from './merkle-subtrees.js';

/** The public fields of one journal entry (its preimage), before it is linked into the chain. */
export type EntryFields = Omit<EntryLine, 'type' | 'chain_hash' | 'leaf'>;

/** What a log keeps between appends: O(log n), stored in the append's own transaction. */
export interface LogState {
  size: number;
  chainHash: string;
  frontier: FrontierState;
}

export function emptyLogState(tenantId: string, sha256: Sha256): LogState {
  return {
    size: 0,
    chainHash: encodeHex(chainGenesis(logIdFor(tenantId, sha256), sha256)),
    frontier: { size: 0, nodes: [] },
  };
}

/** `record_hash = hex(H(CJSON(full internal record)))` (evidence-format.md §3). */
export function recordHash(record: object, sha256: Sha256): string {
  return encodeHex(sha256(encodeUtf8(cjson(record))));
}

/**
 * Link the next entry: its leaf, its chain hash, the log state after it, and the complete
 * Merkle subtrees it finished. Pure: the caller persists all three together, in one
 * transaction.
 */
export function linkEntry(
  state: LogState,
  fields: Omit<EntryFields, 'sequence'>,
  sha256: Sha256,
): { entry: EntryLine; state: LogState; subtrees: CompletedSubtree[] } {
  const sequence = state.size + 1;
  const body: EntryFields = { ...fields, sequence };
  const leaf = entryLeaf(body, sha256);
  const previous = decodeHex(state.chainHash);
  if (previous?.length !== 32) throw new RangeError('the stored chain hash is not 32 bytes of hex');
  const chain = chainNext(previous, leaf, sha256);
  const frontier = MerkleFrontier.fromState(state.frontier, sha256);
  const subtrees: CompletedSubtree[] = [];
  frontier.append(leaf, subtrees);
  return {
    entry: { type: 'entry', ...body, chain_hash: encodeHex(chain), leaf: encodeHex(leaf) },
    state: { size: sequence, chainHash: encodeHex(chain), frontier: frontier.state() },
    subtrees,
  };
}
