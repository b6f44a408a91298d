import {
  journalWrite,
  type Appended,
  type JournalAppend,
  type JournalWrite,
} from '../../evidence/journal-append.js';
import type { LogState } from '../../evidence/journal-entry.js';
import { sha256 } from '../../evidence/node-crypto.js';
import { activityOf } from '../rows/journal-activity.js';
import type { Db } from './database.js';
import { readLogState } from './log-state.js';

export type { Appended, JournalAppend, JournalKind } from '../../evidence/journal-append.js';

/**
 * Per connection and tenant, the log state the last append on that connection wrote, shared
 * by every writer on it (decisions, approvals, effects... interleave their appends).
 */
const heldStates = new WeakMap<Db, Map<string, LogState>>();

/**
 * Append one record to a tenant's journal. Must run inside the caller's write transaction,
 * together with the state change it records: the log state is read and written here in
 * O(log n), never by rescanning the log. What is written is computed by `journalWrite`
 * (evidence/journal-append.ts); this class only stores it.
 *
 * The state is not read back from the store before each append: the writer computes from the
 * state the connection's last append wrote and moves `journal_state` on only where it still
 * holds that size and chain hash (equal chain hashes commit to the same leaves, hence the same
 * frontier). When it does not (another process appended, or that append was rolled back), the
 * stored state is read and the append computed again from it.
 */
export class JournalWriter {
  private readonly advance;
  private readonly writeState;
  private readonly insert;
  private readonly insertNode;
  private readonly count;
  private readonly countFromRecord;
  private readonly held: Map<string, LogState>;

  constructor(private readonly db: Db) {
    let held = heldStates.get(db);
    if (!held) heldStates.set(db, (held = new Map()));
    this.held = held;
    this.advance = db.prepare(
      `UPDATE journal_state SET size = ?, chain_hash = ?, frontier = ?
       WHERE tenant_id = ? AND size = ? AND chain_hash = ?`,
    );
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
    this.count = db.prepare(
      `INSERT INTO journal_activity (tenant_id, hour, kind, outcome, code, n) VALUES (?, ?, ?, ?, ?, 1)
       ON CONFLICT (tenant_id, hour, kind, outcome, code) DO UPDATE SET n = n + 1`,
    );
    // For a record whose outcome or code is not a plain string: read from the stored text,
    // as the migration that made the table counted the journal it found.
    this.countFromRecord = db.prepare(
      `INSERT INTO journal_activity (tenant_id, hour, kind, outcome, code, n)
       SELECT tenant_id, substr(occurred_at, 1, 13), kind,
         CASE WHEN json_valid(record) THEN coalesce(CAST(json_extract(record, '$.outcome') AS TEXT), '') ELSE '' END,
         CASE WHEN json_valid(record) THEN coalesce(CAST(json_extract(record, '$.code') AS TEXT), '') ELSE '' END, 1
       FROM journal WHERE tenant_id = ? AND sequence = ?
       ON CONFLICT (tenant_id, hour, kind, outcome, code) DO UPDATE SET n = n + 1`,
    );
  }

  append(a: JournalAppend, linkedAt: string): Appended {
    if (!this.db.inTransaction) throw new Error('journal appends run inside the state change’s transaction');
    const t = a.tenantId;
    const held = this.held.get(t);
    if (held !== undefined) {
      const w = journalWrite(held, a, linkedAt, sha256);
      const s = w.state;
      if (this.advance.run(s.size, s.chainHash, w.frontierText, t, held.size, held.chainHash).changes === 1) {
        return this.write(a, w);
      }
    }
    const w = journalWrite(readLogState(this.db, t), a, linkedAt, sha256);
    this.writeState.run(t, w.state.size, w.state.chainHash, w.frontierText);
    return this.write(a, w);
  }

  /**
   * The entry row, the Merkle subtrees it completed and its activity count; `journal_state`
   * is already moved on.
   */
  private write(a: JournalAppend, w: JournalWrite): Appended {
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
    for (const node of w.subtrees) this.insertNode.run(r.tenantId, node.level, node.index, blob(node.hash));
    // The hour and kind as stored, so the count groups with the row it counts.
    const counted = activityOf(a.record);
    if (counted) this.count.run(r.tenantId, r.occurredAt.slice(0, 13), r.kind, ...counted);
    else this.countFromRecord.run(r.tenantId, r.sequence);
    this.held.set(r.tenantId, w.state);
    return w.appended;
  }
}

/** better-sqlite3 binds Buffers, not plain Uint8Arrays: a view, no copy. */
export function blob(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
