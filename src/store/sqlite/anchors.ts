import { signHead, type AnchorOps } from '../../core/anchor.js';
import { runSync } from '../../core/use-case.js';
import type { Timestamp, Witness } from '../../evidence/export-line.js';
import {
  anchorValues,
  timestampOf,
  toStoredHead,
  witnessOf,
  type AnchorRow,
  type TimestampRow,
  type WitnessRow,
} from '../rows/anchor.js';
import type { AnchorBacklog, AnchorRepo, HeadSigner, StoredHead } from '../evidence-ports.js';
import { prep, storeError, type Db } from './database.js';
import { readLogState } from './log-state.js';
import { writeTransaction } from './write-lock.js';

/**
 * Anchoring's reads and writes (core/anchor.ts decides): the journal's state with the head
 * stored at its size, and the new head, inserted only where no head is stored at its size.
 */
export function anchorOps(db: Db): AnchorOps {
  return {
    journalHead: (tenantId) => {
      const state = readLogState(db, tenantId);
      if (state === undefined) return undefined;
      const row = prep(db, 'SELECT * FROM anchors WHERE tenant_id = ? AND tree_size = ?').get(
        tenantId,
        state.size,
      ) as AnchorRow | undefined;
      return { state, signed: row && toStoredHead(row) };
    },
    insertHead: (anchor) =>
      prep(
        db,
        `INSERT INTO anchors (tenant_id, tree_size, root_hash, signed_at, signature, key_id, algorithm)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, tree_size) DO NOTHING`,
      ).run(...anchorValues(anchor)).changes,
  };
}

export class SqliteAnchors implements AnchorRepo {
  private readonly ops: AnchorOps;

  constructor(private readonly db: Db) {
    this.ops = anchorOps(db);
  }

  async signCurrent(
    tenantId: string,
    signer: HeadSigner,
    signedAt: string,
  ): Promise<{ anchor: StoredHead; created: boolean }> {
    // IMMEDIATE: the size read and the head written are one step, so no append slips between.
    const tx = this.db.transaction(() => runSync(signHead(tenantId, signer, signedAt), this.ops));
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
    return rows.map((r) => withAttestations(this.db, toStoredHead(r)));
  }

  async latest(tenantId: string): Promise<StoredHead | undefined> {
    const row = prep(
      this.db,
      'SELECT * FROM anchors WHERE tenant_id = ? ORDER BY tree_size DESC LIMIT 1',
    ).get(tenantId) as AnchorRow | undefined;
    return row && withAttestations(this.db, toStoredHead(row));
  }

  async recordTimestamp(tenantId: string, treeSize: number, t: Timestamp): Promise<void> {
    try {
      prep(
        this.db,
        `INSERT INTO anchor_timestamps (tenant_id, tree_size, authority, digest, time, token, noop)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(tenantId, treeSize, t.authority, t.digest, t.time, t.token ?? null, t.noop === true ? 1 : 0);
    } catch (err) {
      throw storeError(err, `the timestamp of tenant ${tenantId}'s head at size ${treeSize}`);
    }
  }

  async recordWitness(tenantId: string, treeSize: number, w: Witness): Promise<void> {
    try {
      prep(
        this.db,
        `INSERT INTO anchor_witnesses (tenant_id, tree_size, witness_id, public_key, signature, signed_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ).run(tenantId, treeSize, w.witness_id, w.public_key ?? '', w.signature, w.signed_at);
    } catch (err) {
      throw storeError(err, `witness ${w.witness_id}'s cosignature of size ${treeSize}`);
    }
  }
}

/** The head with the timestamp and cosignatures recorded for it (two small indexed reads). */
export function withAttestations(db: Db, stored: StoredHead): StoredHead {
  const size = stored.head.tree_size;
  const t = prep(
    db,
    'SELECT authority, digest, time, token, noop FROM anchor_timestamps WHERE tenant_id = ? AND tree_size = ?',
  ).get(stored.tenantId, size) as TimestampRow | undefined;
  const witnesses = prep(
    db,
    `SELECT witness_id, public_key, signature, signed_at FROM anchor_witnesses
     WHERE tenant_id = ? AND tree_size = ? ORDER BY witness_id`,
  ).all(stored.tenantId, size) as WitnessRow[];
  const out: StoredHead = { ...stored };
  if (t !== undefined) out.timestamp = timestampOf(t);
  if (witnesses.length > 0) out.witnesses = witnesses.map(witnessOf);
  return out;
}
