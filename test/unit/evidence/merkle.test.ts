import { readdirSync, readFileSync, statSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendToFrontier,
  checkFrontierState,
  MerkleFrontier,
} from '../../../src/evidence/merkle-frontier.js';
import type { CompletedSubtree } from '../../../src/evidence/merkle-subtrees.js';
import { verifyConsistency, verifyInclusion } from '../../../src/evidence/merkle-proof.js';
import { consistencyProof, inclusionProof, leafHash, treeHash } from '../../../src/evidence/merkle-tree.js';
import { sha256 } from '../../../src/evidence/node-crypto.js';
import { vectorPath } from './vector-paths.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const b64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64'));

const roots = JSON.parse(readFileSync(vectorPath('merkle/roots.json'), 'utf8')) as {
  leaf_inputs_hex: string[];
  root_by_size_hex: string[];
};
const LEAF_INPUTS = roots.leaf_inputs_hex.map((text) => new Uint8Array(Buffer.from(text, 'hex')));

function casesUnder(dir: string): { name: string; data: Record<string, unknown> }[] {
  const root = vectorPath(dir);
  const walk = (relative: string): string[] =>
    readdirSync(root + relative).flatMap((name) => {
      const path = `${relative}${name}`;
      return statSync(root + path).isDirectory() ? walk(`${path}/`) : name.endsWith('.json') ? [path] : [];
    });
  return walk('').map((name) => {
    const data = JSON.parse(readFileSync(root + name, 'utf8')) as Record<string, unknown>;
    // The cases come from Go, where an empty proof may be a nil slice, written as null.
    return { name, data: { ...data, proof: data.proof ?? [] } };
  });
}

interface InclusionCase {
  leafIdx: number;
  treeSize: number;
  root: string;
  leafHash: string;
  proof: string[];
  wantErr: boolean;
}
interface ConsistencyCase {
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  proof: string[];
  wantErr: boolean;
}

const INCLUSION = casesUnder('merkle/inclusion/').map(
  ({ name, data }) => [name, data as unknown as InclusionCase] as const,
);
const CONSISTENCY = casesUnder('merkle/consistency/').map(
  ({ name, data }) => [name, data as unknown as ConsistencyCase] as const,
);

describe('RFC 6962 tree hash (transparency-dev roots for sizes 0..8)', () => {
  it.each(roots.root_by_size_hex.map((root, size) => [size, root] as const))('size %i', (size, root) => {
    const items = LEAF_INPUTS.slice(0, size);
    expect(hex(treeHash(items, sha256))).toBe(root);
    const frontier = new MerkleFrontier(sha256);
    items.forEach((item) => frontier.append(item));
    expect(hex(frontier.root())).toBe(root);
  });
});

describe('RFC 6962 inclusion proofs (transparency-dev cases)', () => {
  it('has valid and mutated cases', () => {
    expect(INCLUSION.filter(([, c]) => !c.wantErr).length).toBeGreaterThanOrEqual(6);
    expect(INCLUSION.filter(([, c]) => c.wantErr).length).toBeGreaterThanOrEqual(60);
  });

  it.each(INCLUSION)('%s', (_name, c) => {
    const ok = verifyInclusion(b64(c.leafHash), c.leafIdx, c.treeSize, c.proof.map(b64), b64(c.root), sha256);
    expect(ok).toBe(!c.wantErr);
  });

  it('generates exactly the proofs of the valid cases over the same tree', () => {
    for (const [, c] of INCLUSION.filter(([name, c]) => !c.wantErr && !name.startsWith('single-entry'))) {
      const items = LEAF_INPUTS.slice(0, c.treeSize);
      expect(hex(leafHash(items[c.leafIdx]!, sha256))).toBe(hex(b64(c.leafHash)));
      expect(inclusionProof(items, c.leafIdx, sha256).map(hex)).toEqual(c.proof.map((p) => hex(b64(p))));
    }
  });
});

describe('RFC 6962 consistency proofs (transparency-dev cases)', () => {
  it('has valid and mutated cases', () => {
    expect(CONSISTENCY.filter(([, c]) => !c.wantErr).length).toBeGreaterThanOrEqual(6);
    expect(CONSISTENCY.filter(([, c]) => c.wantErr).length).toBeGreaterThanOrEqual(80);
  });

  it.each(CONSISTENCY)('%s', (_name, c) => {
    const ok = verifyConsistency(c.size1, c.size2, b64(c.root1), b64(c.root2), c.proof.map(b64), sha256);
    expect(ok).toBe(!c.wantErr);
  });

  it('generates exactly the proofs of the valid cases over the same tree', () => {
    const generated = CONSISTENCY.filter(
      ([name, c]) => !c.wantErr && !name.startsWith('additional') && c.size1 < c.size2,
    );
    expect(generated.length).toBeGreaterThanOrEqual(4);
    for (const [, c] of generated) {
      const items = LEAF_INPUTS.slice(0, c.size2);
      expect(hex(treeHash(items.slice(0, c.size1), sha256))).toBe(hex(b64(c.root1)));
      expect(consistencyProof(items, c.size1, sha256).map(hex)).toEqual(c.proof.map((p) => hex(b64(p))));
    }
  });
});

const items = (count: number, seed: number): Uint8Array[] =>
  Array.from({ length: count }, (_, i) =>
    sha256(Uint8Array.of(seed & 0xff, (seed >> 8) & 0xff, i & 0xff, (i >> 8) & 0xff)),
  );

describe('MerkleFrontier', () => {
  it('equals the full recomputation after every append, for random sizes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 65535 }), (size, seed) => {
        const data = items(size, seed);
        const frontier = new MerkleFrontier(sha256);
        expect(hex(frontier.root())).toBe(hex(treeHash([], sha256)));
        data.forEach((item, i) => {
          frontier.append(item);
          if (i % 17 === 0 || i === size - 1)
            expect(hex(frontier.root())).toBe(hex(treeHash(data.slice(0, i + 1), sha256)));
        });
        expect(frontier.size).toBe(size);
      }),
      { numRuns: 60 },
    );
  });

  it('keeps one node per set bit of its size, and survives a store round trip', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 20 }), (size, more) => {
        const data = items(size + more, size);
        const frontier = new MerkleFrontier(sha256);
        data.slice(0, size).forEach((item) => frontier.append(item));
        const state = frontier.state();
        expect(state.nodes).toHaveLength(
          size
            .toString(2)
            .split('')
            .filter((bit) => bit === '1').length,
        );
        const restored = MerkleFrontier.fromState(JSON.parse(JSON.stringify(state)) as typeof state, sha256);
        data.slice(size).forEach((item) => {
          frontier.append(item);
          restored.append(item);
        });
        expect(hex(restored.root())).toBe(hex(frontier.root()));
        expect(restored.state()).toEqual(frontier.state());
      }),
      { numRuns: 40 },
    );
  });

  it('appendToFrontier computes what fromState + append + state() computes, subtrees included', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 40 }), (size, more) => {
        const data = items(size + more, size);
        const reference = new MerkleFrontier(sha256);
        data.slice(0, size).forEach((item) => reference.append(item));
        let state = reference.state();
        for (const item of data.slice(size)) {
          const expected: CompletedSubtree[] = [];
          const restored = MerkleFrontier.fromState(state, sha256);
          restored.append(item, expected);
          const completed: CompletedSubtree[] = [];
          const before = structuredClone(state);
          const next = appendToFrontier(state, item, sha256, completed);
          expect(state).toEqual(before);
          expect(next).toEqual(restored.state());
          expect(completed.map((c) => [c.level, c.index, hex(c.hash)])).toEqual(
            expected.map((c) => [c.level, c.index, hex(c.hash)]),
          );
          state = next;
        }
        expect(hex(MerkleFrontier.fromState(state, sha256).root())).toBe(hex(treeHash(data, sha256)));
      }),
      { numRuns: 60 },
    );
  });

  it('checkFrontierState refuses what fromState refuses, and appendToFrontier a node it must merge', () => {
    const node = '00'.repeat(32);
    for (const bad of [
      { size: 3, nodes: [node] },
      { size: -1, nodes: [] },
      { size: 1.5, nodes: [node] },
      { size: 1, nodes: ['AB'.repeat(32)] },
      { size: 1, nodes: ['00'] },
      { size: 1, nodes: [`${node}0`] },
    ]) {
      expect(() => checkFrontierState(bad)).toThrow();
      expect(() => MerkleFrontier.fromState(bad, sha256)).toThrow();
    }
    expect(() => checkFrontierState({ size: 2, nodes: [node] })).not.toThrow();
    expect(() => appendToFrontier({ size: 1, nodes: ['zz'.repeat(32)] }, new Uint8Array(32), sha256)).toThrow(
      TypeError,
    );
  });

  it('refuses a stored state that cannot be a frontier', () => {
    const node = '00'.repeat(32);
    expect(() => MerkleFrontier.fromState({ size: 3, nodes: [node] }, sha256)).toThrow(RangeError);
    expect(() => MerkleFrontier.fromState({ size: -1, nodes: [] }, sha256)).toThrow(RangeError);
    expect(() => MerkleFrontier.fromState({ size: 1.5, nodes: [node] }, sha256)).toThrow(RangeError);
    expect(() => MerkleFrontier.fromState({ size: 1, nodes: ['AB'.repeat(32)] }, sha256)).toThrow(TypeError);
    expect(() => MerkleFrontier.fromState({ size: 1, nodes: ['00'] }, sha256)).toThrow(TypeError);
  });
});

describe('proof generation and verification agree on random trees', () => {
  it('inclusion: every generated proof verifies, and not at another index or with a changed hash', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 150 }), fc.nat(), fc.nat(), (size, pick, seed) => {
        const data = items(size, seed);
        const index = pick % size;
        const root = treeHash(data, sha256);
        const proof = inclusionProof(data, index, sha256);
        const leaf = leafHash(data[index]!, sha256);
        expect(verifyInclusion(leaf, index, size, proof, root, sha256)).toBe(true);
        if (size > 1)
          expect(verifyInclusion(leaf, (index + 1) % size, size, proof, root, sha256)).toBe(false);
        if (proof.length > 0) {
          const bent = proof.map((p) => p.slice());
          bent[pick % bent.length]![0]! ^= 1;
          expect(verifyInclusion(leaf, index, size, bent, root, sha256)).toBe(false);
        }
      }),
      { numRuns: 80 },
    );
  });

  it('consistency: every generated proof verifies, and not for another size or root', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 150 }), fc.nat(), fc.nat(), (size2, pick, seed) => {
        const data = items(size2, seed);
        const size1 = 1 + (pick % size2);
        const root1 = treeHash(data.slice(0, size1), sha256);
        const root2 = treeHash(data, sha256);
        const proof = consistencyProof(data, size1, sha256);
        expect(verifyConsistency(size1, size2, root1, root2, proof, sha256)).toBe(true);
        const otherRoot = sha256(root1);
        expect(verifyConsistency(size1, size2, otherRoot, root2, proof, sha256)).toBe(false);
        expect(verifyConsistency(size1, size2, root1, otherRoot, proof, sha256)).toBe(false);
        if (size1 < size2)
          expect(verifyConsistency(size1 + 1, size2, root1, root2, proof, sha256)).toBe(false);
      }),
      { numRuns: 80 },
    );
  });

  it('refuses to generate proofs that cannot exist', () => {
    const data = items(4, 1);
    expect(() => inclusionProof(data, 4, sha256)).toThrow(RangeError);
    expect(() => inclusionProof([], 0, sha256)).toThrow(RangeError);
    expect(() => consistencyProof(data, 0, sha256)).toThrow(RangeError);
    expect(() => consistencyProof(data, 5, sha256)).toThrow(RangeError);
    expect(consistencyProof(data, 4, sha256)).toEqual([]);
  });
});
