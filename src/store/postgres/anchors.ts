import { signHead, type AnchorOps } from '../../core/anchor.js';
import { runAsync, type Async } from '../../core/use-case.js';
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
import { logStateOf, type LogStateRow } from '../rows/log-state.js';
import type { AnchorBacklog, AnchorRepo, HeadSigner, StoredHead } from '../evidence-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { lockTenant } from './locks.js';

/** A row with the tree size it belongs to (BIGINT as text). */
type Sized<R> = R & { tree_size: string };
/** A row's columns as a LEFT JOIN that found nothing returns them. */
type Nullable<R> = { [K in keyof R]: R[K] | null };

/**
 * Anchoring's reads and writes in one tenant transaction (core/anchor.ts decides): the
 * journal's state and the head stored at its size in one round trip, and the new head,
 * inserted only where no head is stored at its size.
 */
export function anchorOpsIn(tx: PgTx): Async<AnchorOps> {
  return {
    journalHead: async (tenantId) => {
      // One round trip: the state and, when stored, the head at its size (null columns when not).
      const [row] = await tx.query<LogStateRow & Nullable<AnchorRow>>(
        `SELECT s.size, s.chain_hash, s.frontier, a.tenant_id, a.tree_size, a.root_hash, a.signed_at, a.signature,
           a.key_id, a.algorithm
         FROM journal_state s LEFT JOIN anchors a ON a.tenant_id = s.tenant_id AND a.tree_size = s.size
         WHERE s.tenant_id = $1`,
        [tenantId],
      );
      if (row === undefined) return undefined;
      return {
        state: logStateOf(row),
        signed: row.tree_size === null ? undefined : toStoredHead(row as AnchorRow),
      };
    },
    insertHead: async (anchor) =>
      (
        await tx.query(
          `INSERT INTO anchors (tenant_id, tree_size, root_hash, signed_at, signature, key_id, algorithm)
           VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (tenant_id, tree_size) DO NOTHING RETURNING 1`,
          anchorValues(anchor),
        )
      ).length,
  };
}

export class PgAnchors implements AnchorRepo {
  constructor(private readonly db: PgDb) {}

  /**
   * One replica signs a size at a time: the tenant lock serialises this with every append
   * and every other replica's anchor, so the size read and the head written are one step,
   * and a second replica finds the first one's head and returns it. The guarded insert is
   * the backstop should the lock ever be missing.
   */
  async signCurrent(
    tenantId: string,
    signer: HeadSigner,
    signedAt: string,
  ): Promise<{ anchor: StoredHead; created: boolean }> {
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, tenantId);
        return runAsync(signHead(tenantId, signer, signedAt), anchorOpsIn(tx));
      });
    } catch (err) {
      throw pgStoreError(err, `the head of tenant ${tenantId}`);
    }
  }

  async backlog(): Promise<AnchorBacklog[]> {
    const rows = await this.db.query<{
      tenant_id: string;
      size: string;
      anchored: string;
      first_unanchored: string | null;
    }>(
      `SELECT s.tenant_id, s.size, x.anchored,
         (SELECT j.linked_at FROM journal j WHERE j.tenant_id = s.tenant_id AND j.sequence = x.anchored + 1)
           AS first_unanchored
       FROM journal_state s
       CROSS JOIN LATERAL (SELECT COALESCE(MAX(a.tree_size), 0) AS anchored FROM anchors a
         WHERE a.tenant_id = s.tenant_id) x
       ORDER BY s.tenant_id`,
    );
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      size: Number(r.size),
      anchoredSize: Number(r.anchored),
      firstUnanchoredAt: Number(r.size) > Number(r.anchored) ? r.first_unanchored : null,
    }));
  }

  async list(tenantId: string): Promise<StoredHead[]> {
    const rows = await this.db.query<AnchorRow>(
      'SELECT * FROM anchors WHERE tenant_id = $1 ORDER BY tree_size',
      [tenantId],
    );
    return withAttestations(this.db, tenantId, rows.map(toStoredHead));
  }

  async latest(tenantId: string): Promise<StoredHead | undefined> {
    const rows = await this.db.query<AnchorRow>(
      'SELECT * FROM anchors WHERE tenant_id = $1 ORDER BY tree_size DESC LIMIT 1',
      [tenantId],
    );
    const [head] = await withAttestations(this.db, tenantId, rows.map(toStoredHead));
    return head;
  }

  async recordTimestamp(tenantId: string, treeSize: number, t: Timestamp): Promise<void> {
    try {
      await this.db.query(
        `INSERT INTO anchor_timestamps (tenant_id, tree_size, authority, digest, time, token, noop)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [tenantId, treeSize, t.authority, t.digest, t.time, t.token ?? null, t.noop === true ? 1 : 0],
      );
    } catch (err) {
      throw pgStoreError(err, `the timestamp of tenant ${tenantId}'s head at size ${treeSize}`);
    }
  }

  async recordWitness(tenantId: string, treeSize: number, w: Witness): Promise<void> {
    try {
      await this.db.query(
        `INSERT INTO anchor_witnesses (tenant_id, tree_size, witness_id, public_key, signature, signed_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [tenantId, treeSize, w.witness_id, w.public_key ?? '', w.signature, w.signed_at],
      );
    } catch (err) {
      throw pgStoreError(err, `witness ${w.witness_id}'s cosignature of size ${treeSize}`);
    }
  }
}

/** The heads with the timestamps and cosignatures recorded for them: two reads, whatever the count. */
export async function withAttestations(
  db: PgTx,
  tenantId: string,
  heads: StoredHead[],
): Promise<StoredHead[]> {
  if (heads.length === 0) return heads;
  const sizes = heads.map((h) => h.head.tree_size);
  const [stamps, cosigned] = await Promise.all([
    db.query<Sized<TimestampRow>>(
      `SELECT tree_size, authority, digest, time, token, noop::int AS noop FROM anchor_timestamps
       WHERE tenant_id = $1 AND tree_size = ANY($2::bigint[])`,
      [tenantId, sizes],
    ),
    db.query<Sized<WitnessRow>>(
      `SELECT tree_size, witness_id, public_key, signature, signed_at FROM anchor_witnesses
       WHERE tenant_id = $1 AND tree_size = ANY($2::bigint[]) ORDER BY tree_size, witness_id COLLATE "C"`,
      [tenantId, sizes],
    ),
  ]);
  const stampAt = new Map(stamps.map((t) => [Number(t.tree_size), t]));
  const witnessesAt = new Map<number, Witness[]>();
  for (const w of cosigned) {
    const size = Number(w.tree_size);
    const list = witnessesAt.get(size) ?? [];
    list.push(witnessOf(w));
    witnessesAt.set(size, list);
  }
  return heads.map((stored) => {
    const out: StoredHead = { ...stored };
    const t = stampAt.get(stored.head.tree_size);
    if (t !== undefined) out.timestamp = timestampOf(t);
    const witnesses = witnessesAt.get(stored.head.tree_size);
    if (witnesses !== undefined) out.witnesses = witnesses;
    return out;
  });
}
