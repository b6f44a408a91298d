import { bytesEqual } from './bytes.js';
import type { Sha256 } from './crypto-provider.js';
import { nodeHash } from './merkle-tree.js';

/**
 * RFC 9162 §2.1.3.2 and §2.1.4.2 proof verification. Proofs arrive from untrusted parties,
 * so these return false for any malformed input (unsafe sizes, proof hashes that are not
 * 32 bytes, wrong path lengths) instead of throwing.
 */

const HASH_BYTES = 32;

const isOdd = (n: number): boolean => n % 2 === 1;
const half = (n: number): number => Math.floor(n / 2);

/** Does `proof` show that the leaf with hash `leafHashValue` sits at `index` in the tree of `size` with `root`? */
export function verifyInclusion(
  leafHashValue: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
  sha256: Sha256,
): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  if (leafHashValue.length !== HASH_BYTES || proof.some((p) => p.length !== HASH_BYTES)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leafHashValue;
  for (const p of proof) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      r = nodeHash(p, r, sha256);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p, sha256);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && bytesEqual(r, root);
}

/**
 * Does `proof` show that the tree of `size2` with `root2` extends the tree of `size1` with
 * `root1`? A proof from the empty tree is refused: it proves nothing (evidence-format.md
 * §6.2 says how a witness treats the first head it sees instead).
 */
export function verifyConsistency(
  size1: number,
  size2: number,
  root1: Uint8Array,
  root2: Uint8Array,
  proof: readonly Uint8Array[],
  sha256: Sha256,
): boolean {
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2)) return false;
  if (size1 < 1 || size2 < size1) return false;
  if (size1 === size2) return proof.length === 0 && bytesEqual(root1, root2);
  if (proof.length === 0 || proof.some((p) => p.length !== HASH_BYTES)) return false;

  // When size1 is a power of two its root is the first node of the path, left implicit.
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : [...proof];
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      fr = nodeHash(c, fr, sha256);
      sr = nodeHash(c, sr, sha256);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c, sha256);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && bytesEqual(fr, root1) && bytesEqual(sr, root2);
}

function isPowerOfTwo(n: number): boolean {
  let x = n;
  while (x > 1 && x % 2 === 0) x /= 2;
  return x === 1;
}
