import { SvcError } from '../../core/errors.js';
import { decodeHex } from '../../evidence/encoding.js';
import {
  storedConsistencyProof,
  storedInclusionProof,
  type SubtreeReader,
} from '../../evidence/merkle-subtrees.js';
import { leafHash } from '../../evidence/merkle-tree.js';
import { sha256 } from '../../evidence/node-crypto.js';
import type { ProofRepo } from '../evidence-ports.js';
import type { PgDb } from './database.js';

type Build = (read: SubtreeReader) => Uint8Array[];

const PLACEHOLDER = new Uint8Array(32);

/**
 * Proofs from the stored complete subtrees, each O(log n) rows. The proof builders read
 * synchronously; which subtrees they read depends only on the sizes, never on the hashes,
 * so a first pass over placeholders names the subtrees, one query fetches them, and a
 * second pass builds the proof from the real hashes.
 */
export class PgMerkleProofs implements ProofRepo {
  constructor(private readonly db: PgDb) {}

  async inclusion(tenantId: string, sequence: number, treeSize: number): Promise<Uint8Array[]> {
    await this.checkSize(tenantId, treeSize);
    return this.prove(tenantId, (read) => storedInclusionProof(sequence - 1, treeSize, read, sha256));
  }

  async consistency(tenantId: string, size1: number, size2: number): Promise<Uint8Array[]> {
    await this.checkSize(tenantId, size2);
    return this.prove(tenantId, (read) => storedConsistencyProof(size1, size2, read, sha256));
  }

  private async checkSize(tenantId: string, treeSize: number): Promise<void> {
    const [row] = await this.db.query<{ size: string }>(
      'SELECT size FROM journal_state WHERE tenant_id = $1',
      [tenantId],
    );
    if (row === undefined || treeSize > Number(row.size)) {
      throw new SvcError(
        'not_found',
        `the journal of tenant ${tenantId} holds fewer than ${treeSize} entries`,
      );
    }
  }

  private async prove(tenantId: string, build: Build): Promise<Uint8Array[]> {
    const wanted: { level: number; index: number }[] = [];
    build((level, index) => {
      wanted.push({ level, index });
      return PLACEHOLDER;
    });
    const leaves = wanted.filter((w) => w.level === 0).map((w) => w.index + 1);
    const nodes = wanted.filter((w) => w.level > 0);
    const [leafRows, nodeRows] = await Promise.all([
      leaves.length === 0
        ? []
        : this.db.query<{ sequence: string; leaf: string }>(
            'SELECT sequence, leaf FROM journal WHERE tenant_id = $1 AND sequence = ANY($2::bigint[])',
            [tenantId, leaves],
          ),
      nodes.length === 0
        ? []
        : this.db.query<{ level: string; idx: string; hash: Buffer }>(
            `SELECT m.level, m.idx, m.hash FROM merkle_nodes m
             JOIN unnest($2::bigint[], $3::bigint[]) AS w(level, idx) ON m.level = w.level AND m.idx = w.idx
             WHERE m.tenant_id = $1`,
            [tenantId, nodes.map((n) => n.level), nodes.map((n) => n.index)],
          ),
    ]);
    const found = new Map<string, Uint8Array>();
    for (const r of leafRows) {
      const bytes = decodeHex(r.leaf);
      if (bytes?.length === 32) found.set(`0:${Number(r.sequence) - 1}`, leafHash(bytes, sha256));
    }
    for (const r of nodeRows) {
      if (r.hash.length === 32) found.set(`${r.level}:${r.idx}`, new Uint8Array(r.hash));
    }
    return build((level, index) => {
      const hash = found.get(`${level}:${index}`);
      if (hash === undefined) {
        throw new SvcError(
          'internal',
          `the journal of tenant ${tenantId} has no Merkle subtree (${level}, ${index})`,
        );
      }
      return hash;
    });
  }
}
