import { concatBytes } from './bytes.js';
import type { Sha256 } from './crypto-provider.js';

/**
 * RFC 6962 §2.1 / RFC 9162 §2.1 Merkle tree hash and proof generation over data items
 * (evidence-format.md §5: item i is the 32 raw bytes of leaf_i). Generation takes the
 * whole list, so it belongs to tests, witnesses and exporters, not to the hot path
 * (which appends to a MerkleFrontier).
 */

const LEAF_PREFIX = Uint8Array.of(0);
const NODE_PREFIX = Uint8Array.of(1);

/** MTH({}) = H(""). */
export function emptyTreeHash(sha256: Sha256): Uint8Array {
  return sha256(new Uint8Array(0));
}

// Reused inputs for the two hashes every appended entry costs; hashing is synchronous and
// never keeps its input.
const leafInput = new Uint8Array(33);
const nodeInput = Uint8Array.of(1, ...new Array<number>(64).fill(0));

/** MTH({d}) = H(0x00 || d). */
export function leafHash(data: Uint8Array, sha256: Sha256): Uint8Array {
  if (data.length !== 32) return sha256(concatBytes(LEAF_PREFIX, data));
  leafInput.set(data, 1);
  return sha256(leafInput);
}

/** H(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array, sha256: Sha256): Uint8Array {
  if (left.length !== 32 || right.length !== 32) return sha256(concatBytes(NODE_PREFIX, left, right));
  nodeInput.set(left, 1);
  nodeInput.set(right, 33);
  return sha256(nodeInput);
}

/** The largest power of two strictly below n (n >= 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[n]) over the data items, in order. */
export function treeHash(data: readonly Uint8Array[], sha256: Sha256): Uint8Array {
  if (data.length === 0) return emptyTreeHash(sha256);
  return subtreeHash(hashLeaves(data, sha256), 0, data.length, sha256);
}

/** RFC 9162 §2.1.3.1 PATH(m, D[n]): the audit path of item `index`, leaf side first. */
export function inclusionProof(data: readonly Uint8Array[], index: number, sha256: Sha256): Uint8Array[] {
  if (!Number.isSafeInteger(index) || index < 0 || index >= data.length) {
    throw new RangeError(`leaf index ${index} is outside a tree of size ${data.length}`);
  }
  const leaves = hashLeaves(data, sha256);
  const path: Uint8Array[] = [];
  let lo = 0;
  let hi = leaves.length;
  let m = index;
  // Walk down from the root, collecting the sibling of each step; reversed at the end.
  while (hi - lo > 1) {
    const k = splitPoint(hi - lo);
    if (m < k) {
      path.push(subtreeHash(leaves, lo + k, hi, sha256));
      hi = lo + k;
    } else {
      path.push(subtreeHash(leaves, lo, lo + k, sha256));
      lo += k;
      m -= k;
    }
  }
  return path.reverse();
}

/** RFC 9162 §2.1.4.1 PROOF(m, D[n]) from the tree of the first `size1` items to all of `data`. */
export function consistencyProof(data: readonly Uint8Array[], size1: number, sha256: Sha256): Uint8Array[] {
  if (!Number.isSafeInteger(size1) || size1 < 1 || size1 > data.length) {
    // A proof from the empty tree proves nothing (and RFC 6962 verifiers refuse it).
    throw new RangeError(`no consistency proof from size ${size1} to size ${data.length}`);
  }
  const leaves = hashLeaves(data, sha256);
  const proof: Uint8Array[] = [];
  subproof(leaves, size1, 0, leaves.length, true, proof, sha256);
  return proof;
}

function subproof(
  leaves: readonly Uint8Array[],
  m: number,
  lo: number,
  hi: number,
  complete: boolean,
  out: Uint8Array[],
  sha256: Sha256,
): void {
  const n = hi - lo;
  if (m === n) {
    if (!complete) out.push(subtreeHash(leaves, lo, hi, sha256));
    return;
  }
  const k = splitPoint(n);
  if (m <= k) {
    subproof(leaves, m, lo, lo + k, complete, out, sha256);
    out.push(subtreeHash(leaves, lo + k, hi, sha256));
  } else {
    subproof(leaves, m - k, lo + k, hi, false, out, sha256);
    out.push(subtreeHash(leaves, lo, lo + k, sha256));
  }
}

function hashLeaves(data: readonly Uint8Array[], sha256: Sha256): Uint8Array[] {
  return data.map((item) => leafHash(item, sha256));
}

function subtreeHash(leaves: readonly Uint8Array[], lo: number, hi: number, sha256: Sha256): Uint8Array {
  if (hi - lo === 1) return leaves[lo]!;
  const k = splitPoint(hi - lo);
  return nodeHash(subtreeHash(leaves, lo, lo + k, sha256), subtreeHash(leaves, lo + k, hi, sha256), sha256);
}
