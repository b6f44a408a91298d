import { anchorLine, lineText, type ExportItem } from '../../evidence/export-writer.js';
import type { JournalExports, JournalSnapshot, StoredRecord } from '../evidence-ports.js';
import { toStoredHead, type AnchorRow } from '../rows/anchor.js';
import { entryLineOf, type EntryRow } from '../rows/journal-entry.js';
import { withAttestations } from './anchors.js';
import { openDatabase, type Db } from './database.js';

/** Rows per read: large enough to amortise a query, small enough that memory stays flat. */
const PAGE = 1000;

/**
 * The RFC 8785 text of an entry line (evidence-format.md §8: keys in UTF-16 order, strings
 * as JSON.stringify writes them, amount_usd as formatUsd gives it), built by SQLite: one
 * string per row instead of fifteen values and an object to canonicalise, which were most
 * of an export's time. Only where that text is exactly cjson(entryLineOf(row)): no tombstone,
 * tier an integer JavaScript prints the same, an amount of 0 to 10^15 - 1 micros (at most 15
 * significant digits: its exact decimal is the shortest JavaScript prints for that number),
 * no `"` in a string (checked here) and nothing but printable ASCII without `\` in the line
 * (checked by NOT_PLAIN: nothing JSON.stringify would escape). Any other row takes the
 * object path.
 */
const STRINGS = `(tenant_id || record_hash || intent_id || actor_id || capability || grant_id || occurred_at
  || linked_at || chain_hash || leaf)`;
const PLAIN = `tombstone IS NULL AND allowed IN (0, 1) AND tier BETWEEN -9007199254740991 AND 9007199254740991
  AND amount_micros BETWEEN 0 AND 999999999999999 AND instr(${STRINGS}, '"') = 0`;
const AMOUNT_USD = `(amount_micros / 1000000) || CASE WHEN amount_micros % 1000000 = 0 THEN ''
  ELSE '.' || rtrim(substr('00000' || (amount_micros % 1000000), -6), '0') END`;
const LINE = `'{"actor_id":"' || actor_id || '","allowed":' || CASE allowed WHEN 1 THEN 'true' ELSE 'false' END
  || ',"amount_usd":' || ${AMOUNT_USD} || ',"capability":"' || capability || '","chain_hash":"' || chain_hash
  || '","grant_id":"' || grant_id || '","intent_id":"' || intent_id || '","leaf":"' || leaf
  || '","linked_at":"' || linked_at || '","occurred_at":"' || occurred_at || '","record_hash":"' || record_hash
  || '","sequence":' || sequence || ',"tenant_id":"' || tenant_id || '","tier":' || tier || ',"type":"entry"}'`;
/** A character JSON.stringify would escape (or one this path does not vouch for) in a line from LINE. */
const NOT_PLAIN = /[^\x20-\x7e]|\\/;

/** sequence and the line's text from LINE, NULL where the query already knows it is not plain. */
type TextRow = [number, string | null];

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
      // Integers as numbers, not safe-integer BigInts (a BigInt per column per row was a third
      // of the read): sequence, tier and allowed are small; amount_micros, which need not be,
      // comes as its exact decimal text, which entryLineOf reads as PostgreSQL's BIGINT text.
      entries: db.prepare(
        `SELECT tenant_id, sequence, record_hash, intent_id, actor_id, capability, tier, allowed, grant_id,
           CAST(amount_micros AS TEXT) AS amount_micros, occurred_at, linked_at, tombstone, chain_hash, leaf
         FROM journal WHERE tenant_id = ? AND sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ${PAGE}`,
      ),
      texts: db
        .prepare(
          `SELECT sequence, CASE WHEN ${PLAIN} THEN ${LINE} END
           FROM journal WHERE tenant_id = ? AND sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ${PAGE}`,
        )
        .raw(true),
      entry: db.prepare(
        `SELECT tenant_id, sequence, record_hash, intent_id, actor_id, capability, tier, allowed, grant_id,
           CAST(amount_micros AS TEXT) AS amount_micros, occurred_at, linked_at, tombstone, chain_hash, leaf
         FROM journal WHERE tenant_id = ? AND sequence = ?`,
      ),
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

  async *records(size: number): AsyncGenerator<StoredRecord[]> {
    const page = this.db.prepare(
      `SELECT sequence, record, record_hash FROM journal
       WHERE tenant_id = ? AND sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ${PAGE}`,
    );
    let after = 0;
    while (after < size) {
      const rows = page.all(this.tenantId, after, size) as {
        sequence: number;
        record: string;
        record_hash: string;
      }[];
      if (rows.length === 0) return;
      yield rows.map((r) => ({ sequence: r.sequence, record: r.record, recordHash: r.record_hash }));
      after = rows.at(-1)!.sequence;
    }
  }

  /**
   * The body of the export as text, a page at a time: what exportBody(size, items(size))
   * writes, byte for byte, with its order checks, but read as text where SQLite can build it.
   */
  async *lines(size: number, opts: { skipAnchorAt?: number } = {}): AsyncGenerator<string> {
    let after = 0;
    let anchors = this.anchorPage(0, size);
    while (after < size) {
      const rows = this.q.texts.all(this.tenantId, after, size) as TextRow[];
      if (rows.length === 0) break;
      let text = '';
      for (const [sequence, line] of rows) {
        if (sequence !== after + 1) {
          throw new RangeError(`the journal yielded entry ${sequence} after entry ${after}`);
        }
        after = sequence;
        text +=
          line !== null && !NOT_PLAIN.test(line)
            ? line + '\n'
            : lineText(entryLineOf(this.q.entry.get(this.tenantId, sequence) as EntryRow));
        while (anchors.length > 0 && Number(anchors[0]!.tree_size) <= after) {
          const a = withAttestations(this.db, toStoredHead(anchors.shift()!));
          if (a.head.tree_size !== opts.skipAnchorAt) text += lineText(anchorLine(a.head, a.keyId, a));
          if (anchors.length === 0) anchors = this.anchorPage(a.head.tree_size, size);
        }
      }
      yield text;
    }
    if (after !== size) throw new RangeError(`the journal yielded ${after} entries; the head covers ${size}`);
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
