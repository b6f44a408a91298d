import { chainGenesis, chainNext } from './chain.js';
import { cjson } from './cjson.js';
import { sha256OfText, type Sha256 } from './crypto-provider.js';
import { decodeHex, encodeHex } from './encoding.js';
import type { EntryLine } from './export-line.js';
import { logIdFor } from './log-id.js';
import { appendToFrontier, checkFrontierState, type FrontierState } from './merkle-frontier.js';
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
  return encodeHex(sha256OfText(sha256, cjson(record)));
}

/**
 * Link the next entry: its leaf, its chain hash, the log state after it, and the complete
 * Merkle subtrees it finished. Pure: the caller persists all three together, in one
 * transaction. `state` is checked as a stored state is (a frontier that cannot be one
 * throws) unless it is the `state` a previous `linkEntry` returned.
 */
export function linkEntry(
  state: LogState,
  fields: Omit<EntryFields, 'sequence'>,
  sha256: Sha256,
): { entry: EntryLine; state: LogState; subtrees: CompletedSubtree[] } {
  if (!linked.has(state)) checkFrontierState(state.frontier);
  const sequence = state.size + 1;
  const body = preimageFields(fields, sequence);
  // The preimage's keys stand in sorted order, so cjson writes it in one native pass.
  const leaf = sha256OfText(sha256, cjson(body));
  const previous = chainBytes.get(state) ?? decodeHex(state.chainHash);
  if (previous?.length !== 32) throw new RangeError('the stored chain hash is not 32 bytes of hex');
  const chain = chainNext(previous, leaf, sha256);
  const chainHash = encodeHex(chain);
  const leafHex = encodeHex(leaf);
  const subtrees: CompletedSubtree[] = [];
  const frontier = appendToFrontier(state.frontier, leaf, sha256, subtrees);
  const next: LogState = { size: sequence, chainHash, frontier };
  linked.add(next);
  chainBytes.set(next, chain);
  const entry: EntryLine = { type: 'entry', ...body, chain_hash: chainHash, leaf: leafHex };
  return { entry, state: next, subtrees };
}

/** States `linkEntry` computed: already well-formed, so not checked again. */
const linked = new WeakSet<LogState>();

/** The chain hash of each state `linkEntry` computed, as bytes: the next link need not decode its hex. */
const chainBytes = new WeakMap<LogState, Uint8Array>();

/**
 * The preimage object of evidence-format.md §3 (every field of the entry line except `type`,
 * `chain_hash` and `leaf`), built with its keys in sorted order.
 */
function preimageFields(f: Omit<EntryFields, 'sequence'>, sequence: number): EntryFields {
  const body: EntryFields = {
    actor_id: f.actor_id,
    allowed: f.allowed,
    amount_usd: f.amount_usd,
    capability: f.capability,
    grant_id: f.grant_id,
    intent_id: f.intent_id,
    linked_at: f.linked_at,
    occurred_at: f.occurred_at,
    record_hash: f.record_hash,
    sequence,
    tenant_id: f.tenant_id,
    tier: f.tier,
  };
  if (f.tombstone !== undefined) body.tombstone = f.tombstone;
  return body;
}
