import type { Sha256 } from './crypto-provider.js';
import { decodeHex, encodeHex } from './encoding.js';
import { emptyTreeHash, leafHash, nodeHash } from './merkle-tree.js';
import type { CompletedSubtree } from './merkle-subtrees.js';

/** What a store keeps per log: JSON-safe, O(log n), updated in each append's transaction. */
export interface FrontierState {
  size: number;
  /** Hex roots of the perfect subtrees on the right edge, largest (leftmost) first: one per set bit of size. */
  nodes: string[];
}

/**
 * The right edge of an RFC 6962 tree: enough to append an item and to compute the root of
 * everything appended so far, in O(log n) memory and hashes. The verifier streams an export
 * through one; the daemon keeps one per tenant.
 */
export class MerkleFrontier {
  readonly #sha256: Sha256;
  #size: number;
  readonly #nodes: Uint8Array[];

  constructor(sha256: Sha256) {
    this.#sha256 = sha256;
    this.#size = 0;
    this.#nodes = [];
  }

  /** Rebuild from a stored state; throws TypeError/RangeError when the state cannot be one. */
  static fromState(state: FrontierState, sha256: Sha256): MerkleFrontier {
    const { size, nodes } = state;
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new RangeError('frontier size is not a safe integer >= 0');
    }
    if (!Array.isArray(nodes) || nodes.length !== bitCount(size)) {
      throw new RangeError(`a frontier of size ${size} holds ${bitCount(size)} nodes`);
    }
    const frontier = new MerkleFrontier(sha256);
    for (const node of nodes) {
      const bytes = typeof node === 'string' ? decodeHex(node) : undefined;
      if (bytes?.length !== 32) throw new TypeError('a frontier node is 64 lowercase hex digits');
      frontier.#nodes.push(bytes);
    }
    frontier.#size = size;
    return frontier;
  }

  get size(): number {
    return this.#size;
  }

  /**
   * Append the next data item (for evidence: the 32 raw bytes of leaf_i). `completed`, when
   * given, receives every complete subtree of level >= 1 this append finishes (amortised
   * one per append), which is what a store keeps to build proofs in O(log n).
   */
  append(data: Uint8Array, completed?: CompletedSubtree[]): void {
    if (this.#size >= Number.MAX_SAFE_INTEGER) throw new RangeError('the tree is full');
    let hash = leafHash(data, this.#sha256);
    let level = 0;
    // Like carrying in binary addition: each trailing 1 bit of size merges one subtree.
    for (let s = this.#size; s % 2 === 1; s = (s - 1) / 2) {
      hash = nodeHash(this.#nodes.pop()!, hash, this.#sha256);
      level += 1;
      completed?.push({ level, index: (s - 1) / 2, hash });
    }
    this.#nodes.push(hash);
    this.#size += 1;
  }

  /** MTH of every item appended so far. */
  root(): Uint8Array {
    if (this.#size === 0) return emptyTreeHash(this.#sha256);
    let root = this.#nodes[this.#nodes.length - 1]!;
    for (let i = this.#nodes.length - 2; i >= 0; i--) root = nodeHash(this.#nodes[i]!, root, this.#sha256);
    return root;
  }

  state(): FrontierState {
    return { size: this.#size, nodes: this.#nodes.map(encodeHex) };
  }
}

const NODE_HEX = /^[0-9a-f]{64}$/;

/** Throws TypeError/RangeError when a stored frontier state cannot be one (as `fromState` does). */
export function checkFrontierState(state: FrontierState): void {
  const { size, nodes } = state;
  if (!Number.isSafeInteger(size) || size < 0)
    throw new RangeError('frontier size is not a safe integer >= 0');
  if (!Array.isArray(nodes) || nodes.length !== bitCount(size)) {
    throw new RangeError(`a frontier of size ${size} holds ${bitCount(size)} nodes`);
  }
  for (const node of nodes) {
    if (typeof node !== 'string' || !NODE_HEX.test(node)) {
      throw new TypeError('a frontier node is 64 lowercase hex digits');
    }
  }
}

/**
 * `MerkleFrontier.fromState(state).append(data, completed)` followed by `.state()`, without
 * decoding and re-encoding the whole right edge: only the nodes the append merges (amortised
 * one) are decoded, the others are carried over as the same hex text. `state` must have
 * passed `checkFrontierState` (or come from this function). Returns the new state.
 */
export function appendToFrontier(
  state: FrontierState,
  data: Uint8Array,
  sha256: Sha256,
  completed?: CompletedSubtree[],
): FrontierState {
  if (state.size >= Number.MAX_SAFE_INTEGER) throw new RangeError('the tree is full');
  const nodes = state.nodes.slice();
  let hash = leafHash(data, sha256);
  let level = 0;
  for (let s = state.size; s % 2 === 1; s = (s - 1) / 2) {
    const left = decodeHex(nodes.pop()!);
    if (left?.length !== 32) throw new TypeError('a frontier node is 64 lowercase hex digits');
    hash = nodeHash(left, hash, sha256);
    level += 1;
    completed?.push({ level, index: (s - 1) / 2, hash });
  }
  nodes.push(encodeHex(hash));
  return { size: state.size + 1, nodes };
}

function bitCount(n: number): number {
  let count = 0;
  for (let x = n; x > 0; x = Math.floor(x / 2)) count += x % 2;
  return count;
}
