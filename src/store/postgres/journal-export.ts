import type pg from 'pg';
import { anchorLine, type ExportItem } from '../../evidence/export-writer.js';
import type { JournalExports, JournalSnapshot, StoredRecord } from '../evidence-ports.js';
import { toStoredHead, type AnchorRow } from '../rows/anchor.js';
import { entryLineOf, type EntryRow } from '../rows/journal-entry.js';
import { withAttestations } from './anchors.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';

/** Rows per fetch: large enough to amortise a round trip, small enough that memory stays flat. */
const PAGE = 2000;

/**
 * One REPEATABLE READ, READ ONLY transaction on its own pooled connection: replicas keep
 * appending, the export sees one state of the log from its first line to its last, and
 * entries stream through a server-side cursor a page at a time (constant memory).
 */
class PgJournalSnapshot implements JournalSnapshot {
  private closed = false;
  /** The snapshot's connection as the shared readers take it: rows, not driver results. */
  private readonly reader: PgTx = {
    query: async <R>(sql: string, params?: unknown[]) => (await this.client.query(sql, params)).rows as R[],
  };

  constructor(
    private readonly client: pg.PoolClient,
    private readonly tenantId: string,
    readonly size: number,
  ) {}

  private async one<R>(sql: string, params: unknown[]): Promise<R> {
    const r = await this.client.query(sql, params);
    return r.rows[0] as R;
  }

  async redactedPast(size: number): Promise<boolean> {
    const r = await this.one<{ hit: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM journal WHERE tenant_id = $1 AND sequence > $2 AND kind = 'redaction'
         AND (tombstone::json ->> 'from_sequence')::bigint <= $2) AS hit`,
      [this.tenantId, size],
    );
    return r.hit;
  }

  async anchorCount(size: number): Promise<number> {
    const r = await this.one<{ n: number }>(
      'SELECT count(*)::int AS n FROM anchors WHERE tenant_id = $1 AND tree_size <= $2',
      [this.tenantId, size],
    );
    return r.n;
  }

  async anchorKeyIds(size: number): Promise<string[]> {
    const r = await this.client.query<{ key_id: string }>(
      `SELECT key_id FROM anchors WHERE tenant_id = $1 AND tree_size <= $2
       GROUP BY key_id ORDER BY min(tree_size)`,
      [this.tenantId, size],
    );
    return r.rows.map((x) => x.key_id);
  }

  async *items(size: number, opts: { skipAnchorAt?: number } = {}): AsyncGenerator<ExportItem[]> {
    await this.client.query(
      `DECLARE entries NO SCROLL CURSOR FOR
         SELECT tenant_id, sequence, record_hash, intent_id, actor_id, capability, tier, allowed::int AS allowed,
           grant_id, amount_micros, occurred_at, linked_at, tombstone, chain_hash, leaf
         FROM journal WHERE tenant_id = $1 AND sequence <= $2 ORDER BY sequence`,
      [this.tenantId, size],
    );
    try {
      let anchors = await this.anchorPage(0, size);
      for (;;) {
        const { rows } = await this.client.query<EntryRow>(`FETCH ${PAGE} FROM entries`);
        if (rows.length === 0) return; // done, or a gap: the writer's own check reports it
        const batch: ExportItem[] = [];
        for (const row of rows) {
          const entry = entryLineOf(row);
          batch.push(entry);
          while (anchors.length > 0 && Number(anchors[0]!.tree_size) <= entry.sequence) {
            const [a] = await withAttestations(this.reader, this.tenantId, [toStoredHead(anchors.shift()!)]);
            if (a!.head.tree_size !== opts.skipAnchorAt) batch.push(anchorLine(a!.head, a!.keyId, a));
            if (anchors.length === 0) anchors = await this.anchorPage(a!.head.tree_size, size);
          }
        }
        yield batch;
      }
    } finally {
      if (!this.closed) await this.client.query('CLOSE entries').catch(() => undefined);
    }
  }

  async *records(size: number): AsyncGenerator<StoredRecord[]> {
    await this.client.query(
      `DECLARE records NO SCROLL CURSOR FOR
         SELECT sequence, record, record_hash FROM journal WHERE tenant_id = $1 AND sequence <= $2 ORDER BY sequence`,
      [this.tenantId, size],
    );
    try {
      for (;;) {
        const { rows } = await this.client.query<{ sequence: string; record: string; record_hash: string }>(
          `FETCH ${PAGE} FROM records`,
        );
        if (rows.length === 0) return;
        yield rows.map((r) => ({
          sequence: Number(r.sequence),
          record: r.record,
          recordHash: r.record_hash,
        }));
      }
    } finally {
      if (!this.closed) await this.client.query('CLOSE records').catch(() => undefined);
    }
  }

  private async anchorPage(after: number, size: number): Promise<AnchorRow[]> {
    const r = await this.client.query<AnchorRow>(
      `SELECT * FROM anchors WHERE tenant_id = $1 AND tree_size > $2 AND tree_size <= $3
       ORDER BY tree_size LIMIT ${PAGE}`,
      [this.tenantId, after, size],
    );
    return r.rows;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.client.query('COMMIT');
      this.client.release();
    } catch (err) {
      // A connection in an unknown state is dropped, never handed to the next caller.
      this.client.release(err as Error);
    }
  }
}

export class PgJournalExports implements JournalExports {
  constructor(private readonly db: PgDb) {}

  async snapshot(tenantId: string): Promise<JournalSnapshot> {
    let client: pg.PoolClient;
    try {
      client = await this.db.pool.connect();
    } catch (err) {
      throw pgStoreError(err, 'the journal snapshot');
    }
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const r = await client.query<{ size: string }>('SELECT size FROM journal_state WHERE tenant_id = $1', [
        tenantId,
      ]);
      return new PgJournalSnapshot(client, tenantId, Number(r.rows[0]?.size ?? 0));
    } catch (err) {
      client.release(err as Error);
      throw pgStoreError(err, 'the journal snapshot');
    }
  }
}
