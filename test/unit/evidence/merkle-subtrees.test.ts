import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MerkleFrontier } from '../../../src/evidence/merkle-frontier.js';
import { verifyConsistency, verifyInclusion } from '../../../src/evidence/merkle-proof.js';
import {
  rangeHash,
  storedConsistencyProof,
  storedInclusionProof,
  type CompletedSubtree,
  type SubtreeReader,
} from '../../../src/evidence/merkle-subtrees.js';
import { consistencyProof, inclusionProof, leafHash, treeHash } from '../../../src/evidence/merkle-tree.js';
import type { Sha256 } from '../../../src/evidence/crypto-provider.js';
import { sha256 } from '../../../src/evidence/node-crypto.js';
import { vectorPath } from './vector-paths.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const b64hex = (text: string): string => Buffer.from(text, 'base64').toString('hex');

/** What a store keeps: every completed subtree an append reports, and the items' leaf hashes. */
export function memoryLog(
  items: readonly Uint8Array[],
  hash: Sha256 = sha256,
): { read: SubtreeReader; roots: string[]; nodes: number } {
  const frontier = new MerkleFrontier(hash);
  const leaves = items.map((item) => leafHash(item, hash));
  const nodes = new Map<number, Uint8Array>();
  const key = (level: number, index: number): number => level * 2 ** 32 + index;
  const roots = [hex(frontier.root())];
  for (const item of items) {
    const completed: CompletedSubtree[] = [];
    frontier.append(item, completed);
    for (const n of completed) nodes.set(key(n.level, n.index), n.hash);
    roots.push(hex(frontier.root()));
  }
  const read: SubtreeReader = (level, index) => {
    if (level === 0) return leaves[index]!;
    const node = nodes.get(key(level, index));
    if (node === undefined) throw new Error(`no subtree ${level}/${index}`);
    return node;
  };
  return { read, roots, nodes: nodes.size };
}

const roots = JSON.parse(readFileSync(vectorPath('merkle/roots.json'), 'utf8')) as {
  leaf_inputs_hex: string[];
};
const LEAF_INPUTS = roots.leaf_inputs_hex.map((t) => new Uint8Array(Buffer.from(t, 'hex')));
const cases = (dir: string): Record<string, unknown>[] =>
  readdirSync(vectorPath(dir))
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => [
      JSON.parse(readFileSync(vectorPath(`${dir}${d}/happy-path.json`), 'utf8')) as Record<string, unknown>,
    ]);

describe('proofs from stored subtrees: RFC 6962 vectors (transparency-dev)', () => {
  const log = memoryLog(LEAF_INPUTS);

  it('builds exactly the vectors’ inclusion proofs', () => {
    const valid = cases('merkle/inclusion/');
    expect(valid.length).toBeGreaterThanOrEqual(4);
    for (const c of valid) {
      const proof = storedInclusionProof(c.leafIdx as number, c.treeSize as number, log.read, sha256);
      expect(proof.map(hex)).toEqual(((c.proof as string[] | null) ?? []).map(b64hex));
    }
  });

  it('builds exactly the vectors’ consistency proofs', () => {
    const valid = cases('merkle/consistency/').filter((c) => (c.size1 as number) >= 1);
    expect(valid.length).toBeGreaterThanOrEqual(4);
    for (const c of valid) {
      const proof = storedConsistencyProof(c.size1 as number, c.size2 as number, log.read, sha256);
      expect(proof.map(hex)).toEqual(((c.proof as string[] | null) ?? []).map(b64hex));
    }
  });
});

const items = (count: number): Uint8Array[] =>
  Array.from({ length: count }, (_, i) => sha256(Uint8Array.of(i & 0xff, (i >> 8) & 0xff, 7)));

describe('proofs from stored subtrees against the O(n) definition', () => {
  const data = items(1000);
  const log = memoryLog(data);

  it('stores amortised one subtree per append (level >= 1)', () => {
    expect(log.nodes).toBe(1000 - 6); // n minus the set bits of n (1000 = 0b1111101000)
    for (let n = 0; n <= 1000; n += 97) expect(log.roots[n]).toBe(hex(treeHash(data.slice(0, n), sha256)));
  });

  it('equals the naive proofs exactly, every size and index up to 96', () => {
    for (let size = 1; size <= 96; size++) {
      const prefix = data.slice(0, size);
      for (let i = 0; i < size; i++) {
        expect(storedInclusionProof(i, size, log.read, sha256).map(hex)).toEqual(
          inclusionProof(prefix, i, sha256).map(hex),
        );
        expect(storedConsistencyProof(i + 1, size, log.read, sha256).map(hex)).toEqual(
          consistencyProof(prefix, i + 1, sha256).map(hex),
        );
      }
    }
  });

  // 500,500 (size, index) pairs, each an inclusion and a consistency proof built and verified:
  // about 25 million hashes. The tree's shape, which is all that proof building decides, does
  // not depend on the hash function, so this sweep uses a fast 256-bit mixing function in
  // SHA-256's place (the RFC 6962 construction is generic in H). The real SHA-256 is pinned
  // above (exact proofs up to size 96, the transparency-dev vectors) and on a real SQLite log
  // in test/integration/merkle-proofs.test.ts.
  it('verifies against the O(n) roots at every size and index from 1 to 1,000', () => {
    const fast = memoryLog(data, mix256);
    const rootBytes = fast.roots.map((r) => new Uint8Array(Buffer.from(r, 'hex')));
    for (let n = 1; n <= 1000; n += 111) expect(fast.roots[n]).toBe(hex(treeHash(data.slice(0, n), mix256)));
    const leafHashes = data.map((d) => leafHash(d, mix256));
    let checked = 0;
    for (let size = 1; size <= 1000; size++) {
      for (let i = 0; i < size; i++) {
        const path = storedInclusionProof(i, size, fast.read, mix256);
        const consistency = storedConsistencyProof(i + 1, size, fast.read, mix256);
        if (
          !verifyInclusion(leafHashes[i]!, i, size, path, rootBytes[size]!, mix256) ||
          !verifyConsistency(i + 1, size, rootBytes[i + 1]!, rootBytes[size]!, consistency, mix256)
        ) {
          throw new Error(`size ${size}, index ${i}: a stored proof does not verify`);
        }
        checked += 1;
      }
    }
    expect(checked).toBe(500_500);
  }, 300_000);

  it('names every range the recursions use, and refuses any other', () => {
    expect(hex(rangeHash(0, 1000, log.read, sha256))).toBe(log.roots[1000]);
    expect(hex(rangeHash(512, 1000, log.read, sha256))).toBe(hex(treeHash(data.slice(512, 1000), sha256)));
    expect(() => rangeHash(3, 7, log.read, sha256)).toThrow(/boundary/);
    expect(() => storedInclusionProof(5, 5, log.read, sha256)).toThrow(RangeError);
    expect(() => storedConsistencyProof(0, 5, log.read, sha256)).toThrow(RangeError);
    expect(() => storedConsistencyProof(6, 5, log.read, sha256)).toThrow(RangeError);
  });
});

/** A fast, well-mixed 256-bit function of the bytes (not cryptographic): see the sweep above. */
function mix256(data: Uint8Array): Uint8Array {
  let h1 = 0x811c9dc5 ^ data.length;
  let h2 = 0x9747b28c;
  for (let i = 0; i < data.length; i++) {
    h1 = Math.imul(h1 ^ data[i]!, 0x01000193);
    h2 = Math.imul(h2 ^ data[i]!, 0x5bd1e995) ^ (h2 >>> 15);
  }
  const out = new Uint8Array(32);
  const view = new DataView(out.buffer);
  let x = h1 | 1;
  let y = h2;
  for (let i = 0; i < 8; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x = (x + y) | 0;
    y = Math.imul(y ^ (y >>> 16), 0x9e3779b1) ^ x;
    view.setUint32(i * 4, x ^ y);
  }
  return out;
}
