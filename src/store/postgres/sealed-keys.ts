import type {
  KekCount,
  SealedKeyBytes,
  SealedKeyPlace,
  SealedKeyRepo,
  SealedKeyRow,
} from '../sealed-key-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';

interface Row {
  kind: 'signing' | 'secrets';
  tenant_id: string;
  key_id: string;
  kek_id: string;
  sealed: Buffer;
  created_at: string;
  sealed_at: string;
}

const toRow = (r: Row): SealedKeyRow => ({
  kind: r.kind,
  tenantId: r.tenant_id,
  keyId: r.key_id,
  kekId: r.kek_id,
  sealed: new Uint8Array(r.sealed),
  createdAt: r.created_at,
  sealedAt: r.sealed_at,
});

const INSERT = `INSERT INTO sealed_keys (kind, tenant_id, key_id, kek_id, sealed, created_at, sealed_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7)`;

const params = (r: SealedKeyRow): unknown[] => [
  r.kind,
  r.tenantId,
  r.keyId,
  r.kekId,
  Buffer.from(r.sealed),
  r.createdAt,
  r.sealedAt,
];

/** Insert on the caller's transaction (svc store migrate seals file keys inside its copy). */
export async function insertSealedKey(tx: PgTx, row: SealedKeyRow): Promise<void> {
  await tx.query(INSERT, params(row));
}

/** Sealed bytes only: the KEK that opens them is never in the database. */
export class PgSealedKeys implements SealedKeyRepo {
  constructor(private readonly db: PgDb) {}

  async get(p: SealedKeyPlace): Promise<SealedKeyRow | undefined> {
    const [r] = await this.db.query<Row>(
      'SELECT * FROM sealed_keys WHERE kind = $1 AND tenant_id = $2 AND key_id = $3',
      [p.kind, p.tenantId, p.keyId],
    );
    return r && toRow(r);
  }

  async insert(row: SealedKeyRow): Promise<void> {
    try {
      await this.db.query(INSERT, params(row));
    } catch (err) {
      throw pgStoreError(err, `the sealed key ${row.keyId}`);
    }
  }

  async discard(p: SealedKeyPlace): Promise<void> {
    await this.db.query('DELETE FROM sealed_keys WHERE kind = $1 AND tenant_id = $2 AND key_id = $3', [
      p.kind,
      p.tenantId,
      p.keyId,
    ]);
  }

  async secretKey(row?: SealedKeyRow): Promise<SealedKeyRow | undefined> {
    if (row) {
      // The partial unique index keeps one secret key: a racing process's insert does nothing.
      await this.db.query(`${INSERT} ON CONFLICT DO NOTHING`, params(row));
    }
    const [r] = await this.db.query<Row>(`SELECT * FROM sealed_keys WHERE kind = 'secrets'`);
    return r && toRow(r);
  }

  async kekCounts(): Promise<KekCount[]> {
    const rows = await this.db.query<{ kek_id: string; n: string }>(
      'SELECT kek_id, count(*) AS n FROM sealed_keys GROUP BY kek_id ORDER BY kek_id',
    );
    return rows.map((r) => ({ kekId: r.kek_id, rows: Number(r.n) }));
  }

  async resealBatch(
    targetKekId: string,
    limit: number,
    reseal: (row: SealedKeyRow) => SealedKeyBytes,
    at: string,
  ): Promise<number> {
    return this.db.tx(async (tx) => {
      // SKIP LOCKED: two rotations running at once share the rows instead of waiting on each other.
      const rows = await tx.query<Row>(
        `SELECT * FROM sealed_keys WHERE kek_id <> $1 ORDER BY kind, tenant_id, key_id
         LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [targetKekId, limit],
      );
      for (const r of rows) {
        const next = reseal(toRow(r));
        await tx.query(
          `UPDATE sealed_keys SET kek_id = $1, sealed = $2, sealed_at = $3
           WHERE kind = $4 AND tenant_id = $5 AND key_id = $6 AND kek_id = $7`,
          [next.kekId, Buffer.from(next.sealed), at, r.kind, r.tenant_id, r.key_id, r.kek_id],
        );
      }
      return rows.length;
    });
  }
}
