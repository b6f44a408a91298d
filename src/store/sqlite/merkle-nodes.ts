import { consistencyProof, inclusionProof, type ProofOps } from '../../core/merkle-proof.js';
import { runSync } from '../../core/use-case.js';
import { decodeHex } from '../../evidence/encoding.js';
import { MerkleFrontier } from '../../evidence/merkle-frontier.js';
import { completedAtSize, type CompletedSubtree } from '../../evidence/merkle-subtrees.js';
import { sha256 } from '../../evidence/node-crypto.js';
import type { ProofRepo } from '../evidence-ports.js';
import { prep, type Db } from './database.js';
import { blob } from './journal.js';

/**
 * A proof's reads (core/merkle-proof.ts builds it) from the stored complete subtrees
 * (migration 6): O(log n) indexed point reads, never the log.
 */
export function proofOps(db: Db): ProofOps {
  const size = prep(db, 'SELECT size FROM journal_state WHERE tenant_id = ?').pluck();
  const leaf = prep(db, 'SELECT leaf FROM journal WHERE tenant_id = ? AND sequence = ?').pluck();
  const node = prep(
    db,
    'SELECT hash FROM merkle_nodes WHERE tenant_id = ? AND at_size = ? AND level = ?',
  ).pluck();
  return {
    journalSize: (tenantId) => size.get(tenantId) as number | undefined,
    subtrees: (tenantId, wanted) =>
      wanted.map(({ level, index }) =>
        level === 0
          ? (leaf.get(tenantId, index + 1) as string | undefined)
          : (node.get(tenantId, completedAtSize(level, index), level) as Buffer | undefined),
      ),
  };
}

export class SqliteMerkleProofs implements ProofRepo {
  private readonly ops: ProofOps;

  constructor(db: Db) {
    this.ops = proofOps(db);
  }

  async inclusion(tenantId: string, sequence: number, treeSize: number): Promise<Uint8Array[]> {
    return runSync(inclusionProof(tenantId, sequence, treeSize), this.ops);
  }

  async consistency(tenantId: string, size1: number, size2: number): Promise<Uint8Array[]> {
    return runSync(consistencyProof(tenantId, size1, size2), this.ops);
  }
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
    'INSERT OR IGNORE INTO merkle_nodes (tenant_id, at_size, level, hash) VALUES (?, ?, ?, ?)',
  );
  for (const { tenant_id: tenantId, size } of pending) {
    const frontier = new MerkleFrontier(sha256);
    for (let after = 0; after < size; after += BACKFILL_PAGE) {
      const page = leaves.all(tenantId, after, Math.min(size, after + BACKFILL_PAGE)) as string[];
      db.transaction(() => {
        for (const hex of page) {
          const completed: CompletedSubtree[] = [];
          frontier.append(decodeHex(hex)!, completed);
          for (const n of completed)
            insert.run(tenantId, completedAtSize(n.level, n.index), n.level, blob(n.hash));
        }
      }).immediate();
    }
    db.prepare('DELETE FROM merkle_backfill WHERE tenant_id = ?').run(tenantId);
  }
}
