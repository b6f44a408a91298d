import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  inclusionProof,
  type ProofOps,
  type SubtreeAt,
} from '../../../src/core/merkle-proof.js';
import { runSync } from '../../../src/core/use-case.js';
import { encodeHex } from '../../../src/evidence/encoding.js';
import { MerkleFrontier } from '../../../src/evidence/merkle-frontier.js';
import type { CompletedSubtree } from '../../../src/evidence/merkle-subtrees.js';
import * as reference from '../../../src/evidence/merkle-tree.js';
import { sha256 } from '../../../src/evidence/node-crypto.js';
import { codedError } from '../../helpers/coded-error.js';

const leaves = (n: number) => Array.from({ length: n }, (_, i) => sha256(new Uint8Array([i, i >> 8])));

/** An in-memory journal: its leaves (hex, as stored) and the complete subtrees its appends finished. */
function memory(n: number) {
  const data = leaves(n);
  const frontier = new MerkleFrontier(sha256);
  const nodes = new Map<string, Uint8Array>();
  for (const leaf of data) {
    const completed: CompletedSubtree[] = [];
    frontier.append(leaf, completed);
    for (const c of completed) nodes.set(`${c.level}:${c.index}`, c.hash);
  }
  const hex = data.map(encodeHex);
  const asked: SubtreeAt[][] = [];
  const ops: ProofOps = {
    journalSize: () => (n === 0 ? undefined : n),
    subtrees: (_tenantId, wanted) => {
      asked.push(wanted);
      return wanted.map((w) => (w.level === 0 ? hex[w.index] : nodes.get(`${w.level}:${w.index}`)));
    },
  };
  return { data, ops, hex, nodes, asked };
}

describe('proofs: one use case over the stored subtrees, for both stores', () => {
  it('proves inclusion and consistency as the reference builds them from every leaf, in one read', () => {
    for (const n of [1, 2, 3, 7, 8, 13, 32, 33]) {
      const { data, ops, asked } = memory(n);
      for (let size = 1; size <= n; size++) {
        for (let seq = 1; seq <= size; seq++) {
          asked.length = 0;
          expect(runSync(inclusionProof('acme', seq, size), ops)).toEqual(
            reference.inclusionProof(data.slice(0, size), seq - 1, sha256),
          );
          expect(asked).toHaveLength(1);
        }
        for (let size1 = 1; size1 <= size; size1++) {
          expect(runSync(consistencyProof('acme', size1, size), ops)).toEqual(
            reference.consistencyProof(data.slice(0, size), size1, sha256),
          );
        }
      }
    }
  });

  it('refuses a tree size the journal does not hold', () => {
    const cases: [ReturnType<typeof memory>, () => ReturnType<typeof inclusionProof>, number][] = [
      [memory(0), () => inclusionProof('acme', 1, 1), 1],
      [memory(5), () => inclusionProof('acme', 1, 6), 6],
      [memory(5), () => consistencyProof('acme', 2, 9), 9],
    ];
    for (const [{ ops, asked }, useCase, size] of cases) {
      const err = codedError(() => runSync(useCase(), ops));
      expect(err.kind).toBe('not_found');
      expect(err.message).toBe(`the journal of tenant acme holds fewer than ${size} entries`);
      expect(asked).toEqual([]);
    }
  });

  it('reports a subtree or a leaf the store lost, or holds malformed, as internal', () => {
    const lostNode = memory(8);
    lostNode.nodes.delete('2:1');
    let err = codedError(() => runSync(inclusionProof('acme', 1, 8), lostNode.ops));
    expect(err.kind).toBe('internal');
    expect(err.message).toBe('the journal of tenant acme has no Merkle subtree (2, 1)');

    const lostLeaf = memory(8);
    lostLeaf.hex[1] = 'ab'.repeat(31); // 31 bytes: not a leaf
    err = codedError(() => runSync(inclusionProof('acme', 1, 8), lostLeaf.ops));
    expect(err.kind).toBe('internal');
    expect(err.message).toBe('the journal of tenant acme has no Merkle subtree (0, 1)');
  });
});
