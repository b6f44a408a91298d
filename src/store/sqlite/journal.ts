import { journalWrite, type Appended, type JournalAppend } from '../../evidence/journal-append.js';
import type { LogState } from '../../evidence/journal-entry.js';
import { sha256 } from '../../evidence/node-crypto.js';
import type { Db } from './database.js';
import { readLogState } from './log-state.js';

export type { Appended, JournalAppend, JournalKind } from '../../evidence/journal-append.js';

/**
 * Append one record to a tenant's journal. Must run inside the caller's write transaction,
 * together with the state change it records: the log state is read and written here in
 * O(log n), never by rescanning the log. What is written is computed by `journalWrite`
 * (evidence/journal-append.ts); this class only stores it.
 */
export class JournalWriter {
  private readonly writeState;
  private readonly insert;
  private readonly insertNode;
  private readonly readHead;
  /** per tenant, the log state this writer last appended: reused while the store still holds it */
  private readonly held = new Map<string, LogState>();

  constructor(private readonly db: Db) {
    this.writeState = db.prepare(
      `INSERT INTO journal_state (tenant_id, size, chain_hash, frontier) VALUES (?, ?, ?, ?)
       ON CONFLICT (tenant_id) DO UPDATE SET size = excluded.size, chain_hash = excluded.chain_hash, frontier = excluded.frontier`,
    );
    this.insert = db.prepare(
      `INSERT INTO journal (tenant_id, sequence, kind, receipt_id, task_id, record, record_hash, intent_id, actor_id,
         capability, tier, allowed, grant_id, amount_micros, occurred_at, linked_at, tombstone, leaf, chain_hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertNode = db.prepare(
      'INSERT INTO merkle_nodes (tenant_id, level, idx, hash) VALUES (?, ?, ?, ?)',
    );
    this.readHead = db.prepare('SELECT size, chain_hash FROM journal_state WHERE tenant_id = ?').raw();
  }

  append(a: JournalAppend, linkedAt: string): Appended {
    if (!this.db.inTransaction) throw new Error('journal appends run inside the state change’s transaction');
    const w = journalWrite(this.current(a.tenantId), a, linkedAt, sha256);
    const r = w.row;
    this.insert.run(
      r.tenantId,
      r.sequence,
      r.kind,
      r.receiptId,
      r.taskId,
      r.record,
      r.recordHash,
      r.intentId,
      r.actorId,
      r.capability,
      r.tier,
      r.allowed,
      r.grantId,
      r.amountMicros,
      r.occurredAt,
      r.linkedAt,
      r.tombstone,
      r.leaf,
      r.chainHash,
    );
    // Amortised one row per append: what makes every proof O(log n) reads (merkle-nodes.ts).
    for (const node of w.subtrees) this.insertNode.run(a.tenantId, node.level, node.index, blob(node.hash));
    this.writeState.run(a.tenantId, w.state.size, w.state.chainHash, w.frontierText);
    this.held.set(a.tenantId, w.state);
    return w.appended;
  }

  /**
   * The tenant's stored log state. The size and chain hash are read in this transaction every
   * time; the frontier is parsed from the store only when they differ from what this writer
   * last appended (another writer or process appended since, or that append was rolled back).
   * Equal chain hashes commit to the same leaves, hence the same frontier.
   */
  private current(tenantId: string): LogState | undefined {
    const row = this.readHead.get(tenantId) as [number, string] | undefined;
    const held = this.held.get(tenantId);
    if (row !== undefined && held !== undefined && held.size === row[0] && held.chainHash === row[1]) {
      return held;
    }
    return readLogState(this.db, tenantId);
  }
}

/** better-sqlite3 binds Buffers, not plain Uint8Arrays: a view, no copy. */
export function blob(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
