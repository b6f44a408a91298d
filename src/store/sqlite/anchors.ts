import { SvcError } from '../../core/errors.js';
import { logHead } from '../../evidence/log-head.js';
import { logIdFor } from '../../evidence/log-id.js';
import { sha256 } from '../../evidence/node-crypto.js';
import { signTreeHead, type TreeHead } from '../../evidence/tree-head.js';
import type { AnchorBacklog, AnchorRepo, HeadSigner, StoredHead } from '../evidence-ports.js';
import { prep, storeError, type Db } from './database.js';
import { readLogState } from './log-state.js';
import { writeTransaction } from './write-lock.js';

export interface AnchorRow {
  tenant_id: string;
  tree_size: number;
  root_hash: string;
  signed_at: string;
  signature: string;
  key_id: string;
  algorithm: 'ed25519';
}

export function toStoredHead(r: AnchorRow): StoredHead {
  const head: TreeHead = {
    log_id: logIdFor(r.tenant_id, sha256),
    index: r.tree_size,
    root_hash: r.root_hash,
    tree_size: r.tree_size,
    signed_at: r.signed_at,
    signature: r.signature,
  };
  return { tenantId: r.tenant_id, head, keyId: r.key_id, algorithm: r.algorithm };
}

export class SqliteAnchors implements AnchorRepo {
  constructor(private readonly db: Db) {}

  async signCurrent(
    tenantId: string,
    signer: HeadSigner,
    signedAt: string,
  ): Promise<{ anchor: StoredHead; created: boolean }> {
    // IMMEDIATE: the size read and the head written are one step, so no append slips between.
    const tx = this.db.transaction(() => {
      const state = readLogState(this.db, tenantId);
      if (state === undefined || state.size === 0) {
        throw new SvcError(
          'conflict',
          `the journal of tenant ${tenantId} is empty: there is no head to sign`,
        );
      }
      const unsigned = logHead(tenantId, state, signedAt, sha256);
      const stored = prep(this.db, 'SELECT * FROM anchors WHERE tenant_id = ? AND tree_size = ?').get(
        tenantId,
        state.size,
      ) as AnchorRow | undefined;
      if (stored !== undefined) {
        if (stored.root_hash !== unsigned.root_hash) {
          // The journal no longer matches what was signed at this size: never sign over that.
          throw new SvcError(
            'internal',
            `the journal of tenant ${tenantId} no longer matches its signed head at size ${state.size}`,
          );
        }
        return { anchor: toStoredHead(stored), created: false };
      }
      const head = signTreeHead(unsigned, signer.sign);
      prep(
        this.db,
        `INSERT INTO anchors (tenant_id, tree_size, root_hash, signed_at, signature, key_id, algorithm)
         VALUES (?, ?, ?, ?, ?, ?, 'ed25519')`,
      ).run(tenantId, head.tree_size, head.root_hash, head.signed_at, head.signature, signer.keyId);
      return {
        anchor: { tenantId, head, keyId: signer.keyId, algorithm: 'ed25519' as const },
        created: true,
      };
    });
    try {
      return await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, `the head of tenant ${tenantId}`);
    }
  }

  async backlog(): Promise<AnchorBacklog[]> {
    const rows = prep(
      this.db,
      `SELECT s.tenant_id, s.size,
         COALESCE((SELECT MAX(a.tree_size) FROM anchors a WHERE a.tenant_id = s.tenant_id), 0) AS anchored
       FROM journal_state s ORDER BY s.tenant_id`,
    ).all() as { tenant_id: string; size: number; anchored: number }[];
    const linkedAt = prep(
      this.db,
      'SELECT linked_at FROM journal WHERE tenant_id = ? AND sequence = ?',
    ).pluck();
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      size: r.size,
      anchoredSize: r.anchored,
      firstUnanchoredAt:
        r.size > r.anchored
          ? ((linkedAt.get(r.tenant_id, r.anchored + 1) as string | undefined) ?? null)
          : null,
    }));
  }

  async list(tenantId: string): Promise<StoredHead[]> {
    const rows = prep(this.db, 'SELECT * FROM anchors WHERE tenant_id = ? ORDER BY tree_size').all(
      tenantId,
    ) as AnchorRow[];
    return rows.map(toStoredHead);
  }
}
