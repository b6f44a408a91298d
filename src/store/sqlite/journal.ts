import {
  journalWrite,
  type Appended,
  type JournalAppend,
  type JournalWrite,
} from '../../evidence/journal-append.js';
import type { LogState } from '../../evidence/journal-entry.js';
import { completedAtSize } from '../../evidence/merkle-subtrees.js';
import { sha256 } from '../../evidence/node-crypto.js';
import { activityOf } from '../rows/journal-activity.js';
import { batchEndOf, type BatchEnd, type Deferred } from './batch-end.js';
import type { Db } from './database.js';
import { readLogState } from './log-state.js';
import { RowBatch } from './row-batch.js';

export type { Appended, JournalAppend, JournalKind } from '../../evidence/journal-append.js';

/**
 * What the journal writers of one connection share: per tenant, the log state the last
 * append on that connection wrote (decisions, approvals, effects... interleave their
 * appends), and what waits for the end of the commit queue's batch.
 */
interface Shared {
  held: Map<string, LogState>;
  batch: JournalBatch;
}

const shared = new WeakMap<Db, Shared>();

function sharedOf(db: Db): Shared {
  let s = shared.get(db);
  if (!s) {
    const held = new Map<string, LogState>();
    s = { held, batch: new JournalBatch(db, held) };
    batchEndOf(db).join(s.batch);
    shared.set(db, s);
  }
  return s;
}

/** A tenant's log state, written whole (the first append, or a batch's end). */
const WRITE_STATE = `INSERT INTO journal_state (tenant_id, size, chain_hash, frontier) VALUES (?, ?, ?, ?)
   ON CONFLICT (tenant_id) DO UPDATE SET size = excluded.size, chain_hash = excluded.chain_hash, frontier = excluded.frontier`;

/** One complete Merkle subtree (merkle-nodes.ts), keyed by the size its append reached. */
const INSERT_NODE = 'INSERT INTO merkle_nodes (tenant_id, at_size, level, hash)';

/** Adds n appends to one activity count (one append, or a batch's sum). */
const ADD_COUNT = `INSERT INTO journal_activity (tenant_id, hour, kind, outcome, code, n) VALUES (?, ?, ?, ?, ?, ?)
   ON CONFLICT (tenant_id, hour, kind, outcome, code) DO UPDATE SET n = n + excluded.n`;

/** One activity count waiting for the batch's end. */
interface Count {
  tenantId: string;
  hour: string;
  kind: string;
  outcome: string;
  code: string;
  n: number;
}

/**
 * The journal rows a batch of decisions moves on once instead of at every append: each
 * tenant's `journal_state` (only the last one is ever read after the batch) and the
 * `journal_activity` counts (they add up), and the Merkle subtrees the appends completed
 * (read only by proofs, after the batch), written together. What waits is written just
 * before the batch's COMMIT, or before a job that did not let its writes wait (batch-end.ts).
 */
class JournalBatch implements Deferred {
  private states = new Map<string, { state: LogState; frontierText: string }>();
  private counts = new Map<string, Count>();
  /** the subtrees the batch's appends completed (held here, not joined to the batch's end) */
  readonly nodes: RowBatch;
  private readonly writeState;
  private readonly count;

  constructor(
    private readonly db: Db,
    private readonly held: Map<string, LogState>,
  ) {
    this.nodes = new RowBatch(db, INSERT_NODE, 4);
    this.writeState = db.prepare(WRITE_STATE);
    this.count = db.prepare(ADD_COUNT);
  }

  /** The tenant's log state after this batch's appends so far; undefined before its first. */
  state(tenantId: string): LogState | undefined {
    return this.states.get(tenantId)?.state;
  }

  /** An append's state and count, once its rows are written. */
  appended(w: JournalWrite, counted: readonly [outcome: string, code: string] | undefined): void {
    const r = w.row;
    this.states.set(r.tenantId, { state: w.state, frontierText: w.frontierText });
    if (!counted) return;
    const hour = r.occurredAt.slice(0, 13);
    const key = `${r.tenantId}\n${hour}\n${r.kind}\n${counted[0]}\n${counted[1]}`;
    const c = this.counts.get(key);
    if (c) c.n++;
    else
      this.counts.set(key, {
        tenantId: r.tenantId,
        hour,
        kind: r.kind,
        outcome: counted[0],
        code: counted[1],
        n: 1,
      });
  }

  flush(): void {
    this.nodes.flush();
    if (this.states.size === 0 && this.counts.size === 0) return;
    // SQLite can end a transaction itself (an I/O error, a full disk): written now, each row
    // would commit on its own, a log state ahead of a journal that was rolled back.
    if (!this.db.inTransaction)
      throw new Error('the journal rows waiting for the batch’s end have no transaction left');
    for (const [t, { state, frontierText }] of this.states)
      this.writeState.run(t, state.size, state.chainHash, frontierText);
    for (const c of this.counts.values()) this.count.run(c.tenantId, c.hour, c.kind, c.outcome, c.code, c.n);
    // Only once every row is written: a flush that fails part-way leaves what waits as it was.
    for (const [t, { state }] of this.states) this.held.set(t, state);
    this.states = new Map();
    this.counts = new Map();
  }

  discard(): void {
    this.nodes.discard();
    this.states = new Map();
    this.counts = new Map();
  }

  mark(): () => void {
    const nodes = this.nodes.mark();
    const states = new Map(this.states);
    const counts = new Map([...this.counts].map(([k, c]) => [k, { ...c }]));
    return () => {
      nodes();
      this.states = states;
      this.counts = counts;
    };
  }
}

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
 *
 * In a commit-queue job that lets its writes wait (batch-end.ts), the tenant's first append of
 * the batch checks the held state against the stored size and chain hash (the batch holds the
 * write lock, so it stays true to the end), later ones go on from the batch's own state, and
 * `journal_state` and the activity counts are written once, at the batch's end.
 */
export class JournalWriter {
  private readonly advance;
  private readonly writeState;
  private readonly head;
  private readonly insert;
  private readonly count;
  private readonly countFromRecord;
  private readonly held: Map<string, LogState>;
  private readonly batch: JournalBatch;
  private readonly end: BatchEnd;

  constructor(private readonly db: Db) {
    ({ held: this.held, batch: this.batch } = sharedOf(db));
    this.end = batchEndOf(db);
    this.advance = db.prepare(
      `UPDATE journal_state SET size = ?, chain_hash = ?, frontier = ?
       WHERE tenant_id = ? AND size = ? AND chain_hash = ?`,
    );
    this.writeState = db.prepare(WRITE_STATE);
    this.head = db.prepare<[string], { size: number; chain_hash: string }>(
      'SELECT size, chain_hash FROM journal_state WHERE tenant_id = ?',
    );
    this.insert = db.prepare(
      `INSERT INTO journal (tenant_id, sequence, kind, receipt_id, task_id, record, record_hash, intent_id, actor_id,
         capability, tier, allowed, grant_id, amount_micros, occurred_at, linked_at, tombstone, leaf, chain_hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.count = db.prepare(ADD_COUNT);
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
    if (this.end.deferring) return this.appendWaiting(a, linkedAt);
    const t = a.tenantId;
    const held = this.held.get(t);
    if (held !== undefined) {
      const w = journalWrite(held, a, linkedAt, sha256);
      const s = w.state;
      if (this.advance.run(s.size, s.chainHash, w.frontierText, t, held.size, held.chainHash).changes === 1) {
        return this.write(a, w, false);
      }
    }
    const w = journalWrite(readLogState(this.db, t), a, linkedAt, sha256);
    this.writeState.run(t, w.state.size, w.state.chainHash, w.frontierText);
    return this.write(a, w, false);
  }

  /** An append whose `journal_state` and count wait for the batch's end. */
  private appendWaiting(a: JournalAppend, linkedAt: string): Appended {
    const t = a.tenantId;
    const from = this.batch.state(t) ?? this.stored(t);
    return this.write(a, journalWrite(from, a, linkedAt, sha256), true);
  }

  /** The tenant's stored log state: the one held, when the store still holds its size and chain hash. */
  private stored(tenantId: string): LogState | undefined {
    const held = this.held.get(tenantId);
    if (held !== undefined) {
      const head = this.head.get(tenantId);
      if (head !== undefined && head.size === held.size && head.chain_hash === held.chainHash) return held;
    }
    return readLogState(this.db, tenantId);
  }

  /**
   * The entry row, the Merkle subtrees it completed and its activity count. `journal_state` is
   * already moved on, or (`waiting`) it and the count are handed to the batch once the rows
   * are written.
   */
  private write(a: JournalAppend, w: JournalWrite, waiting: boolean): Appended {
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
    // Keyed by the size that completed them (this append's), they go after every earlier
    // append's: one page of the table per batch, not one per level.
    for (const node of w.subtrees) {
      const at = completedAtSize(node.level, node.index);
      // A row that waits holds its own copy of the hash, not a view of one that lives on.
      if (waiting) this.batch.nodes.add([r.tenantId, at, node.level, Buffer.from(node.hash)]);
      else this.batch.nodes.writeNow([r.tenantId, at, node.level, blob(node.hash)]);
    }
    // The hour and kind as stored, so the count groups with the row it counts.
    const counted = activityOf(a.record);
    if (!counted) this.countFromRecord.run(r.tenantId, r.sequence);
    if (waiting) {
      this.batch.appended(w, counted);
    } else {
      if (counted) this.count.run(r.tenantId, r.occurredAt.slice(0, 13), r.kind, ...counted, 1);
      this.held.set(r.tenantId, w.state);
    }
    return w.appended;
  }
}

/** better-sqlite3 binds Buffers, not plain Uint8Arrays: a view, no copy. */
export function blob(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
