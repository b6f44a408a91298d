import type { Sha256 } from '../evidence/crypto-provider.js';
import { decodeHex } from '../evidence/encoding.js';
import {
  storedConsistencyProof,
  storedInclusionProof,
  type SubtreeReader,
} from '../evidence/merkle-subtrees.js';
import { leafHash } from '../evidence/merkle-tree.js';
import { sha256 } from '../evidence/node-crypto.js';
import { SvcError } from './errors.js';
import { asker, type UseCase } from './use-case.js';

/** A complete subtree of a journal: level 0 is entry `index + 1`'s leaf. */
export interface SubtreeAt {
  level: number;
  index: number;
}

/**
 * What a store holds of one subtree asked for: an entry's leaf as stored (the journal's
 * `leaf` column, hex) for level 0, the stored hash (merkle_nodes) above; undefined when missing.
 */
export type StoredSubtree = string | Uint8Array | undefined;

/** The reads a proof asks for: the journal's size, then every subtree the proof folds, at once. */
export interface ProofOps {
  /** entries the tenant's journal holds; undefined before its first */
  journalSize(tenantId: string): number | undefined;
  /** what is stored of each subtree asked for, in the order asked */
  subtrees(tenantId: string, wanted: SubtreeAt[]): StoredSubtree[];
}

const ask = asker<ProofOps>();

/** A proof builder over a subtree reader and a hash. */
type Build = (read: SubtreeReader, sha256: Sha256) => Uint8Array[];

/** The audit path of entry `sequence` (leaf index sequence - 1) in the tree of `treeSize` entries. */
export function* inclusionProof(
  tenantId: string,
  sequence: number,
  treeSize: number,
): UseCase<ProofOps, Uint8Array[]> {
  yield* checkTreeSize(tenantId, treeSize);
  return yield* prove(tenantId, (read, hash) => storedInclusionProof(sequence - 1, treeSize, read, hash));
}

/** The RFC 6962 consistency proof from the tree of `size1` entries to that of `size2`. */
export function* consistencyProof(
  tenantId: string,
  size1: number,
  size2: number,
): UseCase<ProofOps, Uint8Array[]> {
  yield* checkTreeSize(tenantId, size2);
  return yield* prove(tenantId, (read, hash) => storedConsistencyProof(size1, size2, read, hash));
}

function* checkTreeSize(tenantId: string, treeSize: number): UseCase<ProofOps, void> {
  const size = yield* ask('journalSize', tenantId);
  if (size === undefined || treeSize > size) {
    throw new SvcError('not_found', `the journal of tenant ${tenantId} holds fewer than ${treeSize} entries`);
  }
}

const PLACEHOLDER = new Uint8Array(32);

/**
 * Which subtrees a proof reads depends only on the sizes, never on the hashes: a first pass
 * over placeholders (no hashing) names them, one read fetches them all, and a second pass
 * builds the proof from the stored hashes. A proof costs O(log n) rows and one store call.
 */
function* prove(tenantId: string, build: Build): UseCase<ProofOps, Uint8Array[]> {
  const wanted: SubtreeAt[] = [];
  build(
    (level, index) => {
      wanted.push({ level, index });
      return PLACEHOLDER;
    },
    () => PLACEHOLDER,
  );
  const stored = yield* ask('subtrees', tenantId, wanted);
  // The second pass asks for the same subtrees in the same order: the i-th answer is its i-th read.
  let i = 0;
  return build((level, index) => {
    const at = wanted[i];
    const hash = at?.level === level && at.index === index ? subtreeHash(level, stored[i]) : undefined;
    i++;
    if (hash === undefined) {
      throw new SvcError(
        'internal',
        `the journal of tenant ${tenantId} has no Merkle subtree (${level}, ${index})`,
      );
    }
    return hash;
  }, sha256);
}

/** A stored subtree's hash, when it is one: a leaf is hashed as RFC 6962 says, a node is taken as stored. */
function subtreeHash(level: number, stored: StoredSubtree): Uint8Array | undefined {
  if (level === 0) {
    const bytes = typeof stored === 'string' ? decodeHex(stored) : undefined;
    return bytes?.length === 32 ? leafHash(bytes, sha256) : undefined;
  }
  // A copy: a driver's Buffer may share a pool with other rows.
  return stored instanceof Uint8Array && stored.length === 32 ? new Uint8Array(stored) : undefined;
}
