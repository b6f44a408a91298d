import { consistencyProof, inclusionProof, type ProofOps } from '../../core/merkle-proof.js';
import { runAsync, type Async } from '../../core/use-case.js';
import { completedAtSize } from '../../evidence/merkle-subtrees.js';
import type { ProofRepo } from '../evidence-ports.js';
import type { PgDb } from './database.js';

/**
 * A proof's reads (core/merkle-proof.ts builds it) from the stored complete subtrees: the
 * journal's size, then every subtree the proof folds in one round trip of two queries.
 */
export function proofOpsOn(db: PgDb): Async<ProofOps> {
  return {
    journalSize: async (tenantId) => {
      const [row] = await db.query<{ size: string }>('SELECT size FROM journal_state WHERE tenant_id = $1', [
        tenantId,
      ]);
      return row === undefined ? undefined : Number(row.size);
    },
    subtrees: async (tenantId, wanted) => {
      const leaves = wanted.filter((w) => w.level === 0).map((w) => w.index + 1);
      const nodes = wanted.filter((w) => w.level > 0);
      const [leafRows, nodeRows] = await Promise.all([
        leaves.length === 0
          ? []
          : db.query<{ sequence: string; leaf: string }>(
              'SELECT sequence, leaf FROM journal WHERE tenant_id = $1 AND sequence = ANY($2::bigint[])',
              [tenantId, leaves],
            ),
        nodes.length === 0
          ? []
          : db.query<{ at_size: string; level: string; hash: Buffer }>(
              `SELECT m.at_size, m.level, m.hash FROM merkle_nodes m
               JOIN unnest($2::bigint[], $3::bigint[]) AS w(at_size, level)
                 ON m.at_size = w.at_size AND m.level = w.level
               WHERE m.tenant_id = $1`,
              [tenantId, nodes.map((n) => completedAtSize(n.level, n.index)), nodes.map((n) => n.level)],
            ),
      ]);
      const leafAt = new Map(leafRows.map((r) => [Number(r.sequence) - 1, r.leaf]));
      const nodeAt = new Map(nodeRows.map((r) => [`${r.level}:${r.at_size}`, r.hash]));
      return wanted.map((w) =>
        w.level === 0 ? leafAt.get(w.index) : nodeAt.get(`${w.level}:${completedAtSize(w.level, w.index)}`),
      );
    },
  };
}

export class PgMerkleProofs implements ProofRepo {
  private readonly ops: Async<ProofOps>;

  constructor(db: PgDb) {
    this.ops = proofOpsOn(db);
  }

  async inclusion(tenantId: string, sequence: number, treeSize: number): Promise<Uint8Array[]> {
    return runAsync(inclusionProof(tenantId, sequence, treeSize), this.ops);
  }

  async consistency(tenantId: string, size1: number, size2: number): Promise<Uint8Array[]> {
    return runAsync(consistencyProof(tenantId, size1, size2), this.ops);
  }
}
