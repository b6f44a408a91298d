import { anchorLine, type ExportItem } from '../../evidence/export-writer.js';
import type { JournalExports, JournalSnapshot } from '../evidence-ports.js';
import { toStoredHead, type AnchorRow } from '../rows/anchor.js';
import { entryLineOf, type EntryRow } from '../rows/journal-entry.js';
import { withAttestations } from './anchors.js';
import { openDatabase, type Db } from './database.js';

/** Rows per read: large enough to amortise a query, small enough that memory stays flat. */
const PAGE = 2000;

/** The journal columns an entry line is made of, for a query over `journal j`. */
export const ENTRY_LINE_COLUMNS = `j.tenant_id, j.sequence, j.record_hash, j.intent_id, j.actor_id, j.capability,
  j.tier, j.allowed, j.grant_id, j.amount_micros, j.occurred_at, j.linked_at, j.tombstone, j.chain_hash, j.leaf`;

/**
 * One read transaction on its own read-only connection: the daemon keeps appending
 * (WAL), the export sees one state of the log from its first page to its last, and the
 * store's own connection stays free for writes.
 */
class SqliteJournalSnapshot implements JournalSnapshot {
  readonly size: number;
  private readonly q;

  constructor(
    private readonly db: Db,
    private readonly tenantId: string,
  ) {
    db.exec('BEGIN');
    this.q = {
      entries: db
        .prepare(
          `SELECT tenant_id, sequence, record_hash, intent_id, actor_id, capability, tier, allowed, grant_id,
             amount_micros, occurred_at, linked_at, tombstone, chain_hash, leaf
           FROM journal WHERE tenant_id = ? AND sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ${PAGE}`,
        )
        .safeIntegers(true),
      anchors: db.prepare(
        `SELECT * FROM anchors WHERE tenant_id = ? AND tree_size > ? AND tree_size <= ? ORDER BY tree_size LIMIT ${PAGE}`,
      ),
    };
    this.size =
      (db.prepare('SELECT size FROM journal_state WHERE tenant_id = ?').pluck().get(tenantId) as
        number | undefined) ?? 0;
  }

  redactedPast(size: number): boolean {
    return (
      this.db
        .prepare(
          `SELECT EXISTS (SELECT 1 FROM journal WHERE tenant_id = ? AND sequence > ? AND kind = 'redaction'
             AND json_extract(tombstone, '$.from_sequence') <= ?)`,
        )
        .pluck()
        .get(this.tenantId, size, size) === 1
    );
  }

  anchorCount(size: number): number {
    return this.db
      .prepare('SELECT count(*) FROM anchors WHERE tenant_id = ? AND tree_size <= ?')
      .pluck()
      .get(this.tenantId, size) as number;
  }

  anchorKeyIds(size: number): string[] {
    return this.db
      .prepare(
        'SELECT key_id FROM anchors WHERE tenant_id = ? AND tree_size <= ? GROUP BY key_id ORDER BY min(tree_size)',
      )
      .pluck()
      .all(this.tenantId, size) as string[];
  }

  async *items(size: number, opts: { skipAnchorAt?: number } = {}): AsyncGenerator<ExportItem[]> {
    let after = 0;
    let anchors = this.anchorPage(0, size);
    while (after < size) {
      const rows = this.q.entries.all(this.tenantId, after, size) as EntryRow[];
      if (rows.length === 0) return; // a gap: the writer's own check reports it
      const batch: ExportItem[] = [];
      for (const row of rows) {
        const entry = entryLineOf(row);
        batch.push(entry);
        after = entry.sequence;
        while (anchors.length > 0 && Number(anchors[0]!.tree_size) <= after) {
          const a = withAttestations(this.db, toStoredHead(anchors.shift()!));
          if (a.head.tree_size !== opts.skipAnchorAt) batch.push(anchorLine(a.head, a.keyId, a));
          if (anchors.length === 0) anchors = this.anchorPage(a.head.tree_size, size);
        }
      }
      yield batch;
    }
  }

  private anchorPage(after: number, size: number): AnchorRow[] {
    return this.q.anchors.all(this.tenantId, after, size) as AnchorRow[];
  }

  close(): void {
    if (this.db.inTransaction) this.db.exec('COMMIT');
    this.db.close();
  }
}

export class SqliteJournalExports implements JournalExports {
  constructor(private readonly file: string) {}

  snapshot(tenantId: string): JournalSnapshot {
    const db = openDatabase(this.file, { readonly: true });
    try {
      return new SqliteJournalSnapshot(db, tenantId);
    } catch (err) {
      db.close();
      throw err;
    }
  }
}
