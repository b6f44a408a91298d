import type { Sha256 } from './crypto-provider.js';
import { nodeHash, splitPoint } from './merkle-tree.js';

/**
 * RFC 6962 proofs built from stored complete subtrees instead of the whole leaf list. A
 * complete subtree is `(level, index)`: the MTH of items `[index * 2^level, (index + 1) *
 * 2^level)`. Every range the RFC's PATH and PROOF recursions name starts at a multiple of
 * the power of two at or above its length, so its hash is a fold of at most log2(n)
 * complete subtrees: a proof costs O(log n) reads, whatever the log size.
 */

/** The hash of one complete subtree; level 0 is the leaf hash H(0x00 || d) of item `index`. */
export type SubtreeReader = (level: number, index: number) => Uint8Array;

/** A complete subtree that an append finished (level >= 1: level 0 is the item itself). */
export interface CompletedSubtree {
  level: number;
  index: number;
  hash: Uint8Array;
}

const pow2 = (level: number): number => 2 ** level;

/**
 * The log size at which subtree `(level, index)` was completed: the append of its last item.
 * Every append completes its subtrees at its own size, so keyed by it (then level) a store
 * adds each append's subtrees after all earlier ones.
 */
export function completedAtSize(level: number, index: number): number {
  return (index + 1) * pow2(level);
}

/** Below this, sizes fit 32-bit integer arithmetic (Math.clz32); above it, plain arithmetic. */
const SMALL = 2 ** 30;

/** The largest power of two strictly below n (n >= 2), in O(1) for the usual sizes. */
function split(n: number): number {
  return n <= SMALL ? 2 ** (31 - Math.clz32(n - 1)) : splitPoint(n);
}

/** MTH(D[lo:hi]) for an RFC-aligned range (see above); throws on a range no recursion names. */
export function rangeHash(lo: number, hi: number, read: SubtreeReader, sha256: Sha256): Uint8Array {
  if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || lo < 0 || hi <= lo) {
    throw new RangeError(`no subtree covers items [${lo}, ${hi})`);
  }
  const n = hi - lo;
  if (n <= SMALL && (n & (n - 1)) === 0) {
    // One complete subtree: the usual case, one read.
    if (lo % n !== 0) throw new RangeError(`items [${lo}, ${hi}) do not start on a subtree boundary`);
    return read(31 - Math.clz32(n), lo / n);
  }
  const parts: Uint8Array[] = [];
  let pos = lo;
  for (let level = Math.floor(Math.log2(hi - lo)) + 1; level >= 0; level--) {
    const width = pow2(level);
    if (pos + width > hi) continue;
    if (pos % width !== 0) throw new RangeError(`items [${lo}, ${hi}) do not start on a subtree boundary`);
    parts.push(read(level, pos / width));
    pos += width;
  }
  // Like a frontier's root: the right edge folds from the smallest subtree up.
  let root = parts[parts.length - 1]!;
  for (let i = parts.length - 2; i >= 0; i--) root = nodeHash(parts[i]!, root, sha256);
  return root;
}

/** RFC 9162 §2.1.3.1 PATH(index, D[size]), leaf side first, from stored subtrees. */
export function storedInclusionProof(
  index: number,
  size: number,
  read: SubtreeReader,
  sha256: Sha256,
): Uint8Array[] {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) {
    throw new RangeError(`leaf index ${index} is outside a tree of size ${size}`);
  }
  const path: Uint8Array[] = [];
  let lo = 0;
  let hi = size;
  while (hi - lo > 1) {
    const k = split(hi - lo);
    if (index - lo < k) {
      path.push(rangeHash(lo + k, hi, read, sha256));
      hi = lo + k;
    } else {
      path.push(rangeHash(lo, lo + k, read, sha256));
      lo += k;
    }
  }
  return path.reverse();
}

/** RFC 9162 §2.1.4.1 PROOF(size1, D[size2]) from stored subtrees; none from the empty tree. */
export function storedConsistencyProof(
  size1: number,
  size2: number,
  read: SubtreeReader,
  sha256: Sha256,
): Uint8Array[] {
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2) || size1 < 1 || size1 > size2) {
    throw new RangeError(`no consistency proof from size ${size1} to size ${size2}`);
  }
  const proof: Uint8Array[] = [];
  let m = size1;
  let lo = 0;
  let hi = size2;
  let complete = true;
  // SUBPROOF(m, D[lo:hi], complete), unrolled: each step records the sibling it leaves behind.
  const siblings: Uint8Array[] = [];
  while (m !== hi - lo) {
    const k = split(hi - lo);
    if (m <= k) {
      siblings.push(rangeHash(lo + k, hi, read, sha256));
      hi = lo + k;
    } else {
      siblings.push(rangeHash(lo, lo + k, read, sha256));
      lo += k;
      m -= k;
      complete = false;
    }
  }
  if (!complete) proof.push(rangeHash(lo, hi, read, sha256));
  // The recursion emits the deepest sibling first.
  for (let i = siblings.length - 1; i >= 0; i--) proof.push(siblings[i]!);
  return proof;
}
