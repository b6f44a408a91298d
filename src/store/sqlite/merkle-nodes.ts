import { SvcError } from '../../core/errors.js';
import { decodeHex } from '../../evidence/encoding.js';
import { MerkleFrontier } from '../../evidence/merkle-frontier.js';
import {
  storedConsistencyProof,
  storedInclusionProof,
  type CompletedSubtree,
  type SubtreeReader,
} from '../../evidence/merkle-subtrees.js';
import { leafHash } from '../../evidence/merkle-tree.js';
import { sha256 } from '../../evidence/node-crypto.js';
import type { ProofRepo } from '../evidence-ports.js';
import { prep, type Db } from './database.js';
import { blob } from './journal.js';

/**
 * Proofs over a tenant's journal from its stored complete subtrees (migration 6): each
 * proof reads O(log n) rows, never the log.
 */
export class SqliteMerkleProofs implements ProofRepo {
  constructor(private readonly db: Db) {}

  /** The audit path of entry `sequence` in the tree of the first `treeSize` entries. */
  async inclusion(tenantId: string, sequence: number, treeSize: number): Promise<Uint8Array[]> {
    this.checkSize(tenantId, treeSize);
    return storedInclusionProof(sequence - 1, treeSize, this.reader(tenantId), sha256);
  }

  /** The RFC 6962 consistency proof from the tree of `size1` entries to that of `size2`. */
  async consistency(tenantId: string, size1: number, size2: number): Promise<Uint8Array[]> {
    this.checkSize(tenantId, size2);
    return storedConsistencyProof(size1, size2, this.reader(tenantId), sha256);
  }

  private checkSize(tenantId: string, treeSize: number): void {
    const size = prep(this.db, 'SELECT size FROM journal_state WHERE tenant_id = ?').pluck().get(tenantId) as
      number | undefined;
    if (size === undefined || treeSize > size) {
      throw new SvcError(
        'not_found',
        `the journal of tenant ${tenantId} holds fewer than ${treeSize} entries`,
      );
    }
  }

  private reader(tenantId: string): SubtreeReader {
    const leaf = prep(this.db, 'SELECT leaf FROM journal WHERE tenant_id = ? AND sequence = ?').pluck();
    const node = prep(
      this.db,
      'SELECT hash FROM merkle_nodes WHERE tenant_id = ? AND level = ? AND idx = ?',
    ).pluck();
    return (level, index) => {
      if (level === 0) {
        const hex = leaf.get(tenantId, index + 1) as string | undefined;
        const bytes = hex === undefined ? undefined : decodeHex(hex);
        if (bytes?.length !== 32) throw missing(tenantId, level, index);
        return leafHash(bytes, sha256);
      }
      const hash = node.get(tenantId, level, index) as Buffer | undefined;
      if (hash?.length !== 32) throw missing(tenantId, level, index);
      return new Uint8Array(hash);
    };
  }
}

function missing(tenantId: string, level: number, index: number): SvcError {
  return new SvcError(
    'internal',
    `the journal of tenant ${tenantId} has no Merkle subtree (${level}, ${index})`,
  );
}

/** Leaves read per backfill transaction: bounded memory, short write locks. */
const BACKFILL_PAGE = 10_000;

/**
 * Fill merkle_nodes for journals written before it existed (listed by migration 6), once.
 * Idempotent (INSERT OR IGNORE), so two processes opening the same file at once agree.
 */
export function backfillMerkleNodes(db: Db): void {
  const pending = db.prepare('SELECT tenant_id, size FROM merkle_backfill').all() as {
    tenant_id: string;
    size: number;
  }[];
  const leaves = db
    .prepare(
      'SELECT leaf FROM journal WHERE tenant_id = ? AND sequence > ? AND sequence <= ? ORDER BY sequence',
    )
    .pluck();
  const insert = db.prepare(
    'INSERT OR IGNORE INTO merkle_nodes (tenant_id, level, idx, hash) VALUES (?, ?, ?, ?)',
  );
  for (const { tenant_id: tenantId, size } of pending) {
    const frontier = new MerkleFrontier(sha256);
    for (let after = 0; after < size; after += BACKFILL_PAGE) {
      const page = leaves.all(tenantId, after, Math.min(size, after + BACKFILL_PAGE)) as string[];
      db.transaction(() => {
        for (const hex of page) {
          const completed: CompletedSubtree[] = [];
          frontier.append(decodeHex(hex)!, completed);
          for (const n of completed) insert.run(tenantId, n.level, n.index, blob(n.hash));
        }
      }).immediate();
    }
    db.prepare('DELETE FROM merkle_backfill WHERE tenant_id = ?').run(tenantId);
  }
}
