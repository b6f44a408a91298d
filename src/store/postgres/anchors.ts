import { SvcError } from '../../core/errors.js';
import type { Timestamp, Witness } from '../../evidence/export-line.js';
import { logHead } from '../../evidence/log-head.js';
import { sha256 } from '../../evidence/node-crypto.js';
import { signTreeHead } from '../../evidence/tree-head.js';
import { toStoredHead, type AnchorRow } from '../rows/anchor.js';
import type { AnchorBacklog, AnchorRepo, HeadSigner, StoredHead } from '../evidence-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { readLogState } from './journal.js';
import { lockTenant } from './locks.js';

export class PgAnchors implements AnchorRepo {
  constructor(private readonly db: PgDb) {}

  /**
   * One replica signs a size at a time: the tenant lock serialises this with every append
   * and every other replica's anchor, so the size read and the head written are one step,
   * and a second replica finds the first one's head and returns it. The primary key
   * (tenant_id, tree_size) is the backstop should the lock ever be missing.
   */
  async signCurrent(
    tenantId: string,
    signer: HeadSigner,
    signedAt: string,
  ): Promise<{ anchor: StoredHead; created: boolean }> {
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, tenantId);
        const state = await readLogState(tx, tenantId);
        if (state === undefined || state.size === 0) {
          throw new SvcError(
            'conflict',
            `the journal of tenant ${tenantId} is empty: there is no head to sign`,
          );
        }
        const unsigned = logHead(tenantId, state, signedAt, sha256);
        const [stored] = await tx.query<AnchorRow>(
          'SELECT * FROM anchors WHERE tenant_id = $1 AND tree_size = $2',
          [tenantId, state.size],
        );
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
        await tx.query(
          `INSERT INTO anchors (tenant_id, tree_size, root_hash, signed_at, signature, key_id, algorithm)
           VALUES ($1, $2, $3, $4, $5, $6, 'ed25519')`,
          [tenantId, head.tree_size, head.root_hash, head.signed_at, head.signature, signer.keyId],
        );
        return {
          anchor: { tenantId, head, keyId: signer.keyId, algorithm: 'ed25519' as const },
          created: true,
        };
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

interface TimestampRow {
  tree_size: string;
  authority: string;
  digest: string;
  time: string;
  token: string | null;
  noop: number;
}

interface WitnessRow {
  tree_size: string;
  witness_id: string;
  public_key: string;
  signature: string;
  signed_at: string;
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
    db.query<TimestampRow>(
      `SELECT tree_size, authority, digest, time, token, noop::int AS noop FROM anchor_timestamps
       WHERE tenant_id = $1 AND tree_size = ANY($2::bigint[])`,
      [tenantId, sizes],
    ),
    db.query<WitnessRow>(
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
    list.push({
      witness_id: w.witness_id,
      ...(w.public_key !== '' ? { public_key: w.public_key } : {}),
      signature: w.signature,
      signed_at: w.signed_at,
    });
    witnessesAt.set(size, list);
  }
  return heads.map((stored) => {
    const out: StoredHead = { ...stored };
    const t = stampAt.get(stored.head.tree_size);
    if (t !== undefined) {
      out.timestamp = {
        authority: t.authority,
        digest: t.digest,
        time: t.time,
        ...(t.token !== null ? { token: t.token } : {}),
        ...(t.noop === 1 ? { noop: true } : {}),
      };
    }
    const witnesses = witnessesAt.get(stored.head.tree_size);
    if (witnesses !== undefined) out.witnesses = witnesses;
    return out;
  });
}
