import { formatUsd, type Micros } from '../../core/money.js';
import { cjson } from '../../evidence/cjson.js';
import { encodeHex, encodeUtf8 } from '../../evidence/encoding.js';
import type { Tombstone } from '../../evidence/export-line.js';
import { emptyLogState, linkEntry } from '../../evidence/journal-entry.js';
import { sha256 } from '../../evidence/node-crypto.js';
import type { Db } from './database.js';
import { readLogState } from './log-state.js';

export type JournalKind =
  | 'decision'
  | 'observation'
  | 'grant_effect'
  | 'approval'
  | 'execution'
  | 'redaction'
  | 'integration_op'
  | 'access';

export interface JournalAppend {
  tenantId: string;
  kind: JournalKind;
  receiptId: string;
  taskId: string | null;
  intentId: string;
  actorId: string;
  capability: string;
  tier: number;
  allowed: boolean;
  /** '' when no grant was issued */
  grantId: string;
  amountMicros: Micros;
  occurredAt: string;
  /**
   * The full internal record: private fields (request digest, correlation ids, reason,
   * effect) included. Only its hash is published; it must contain the random intent id so
   * the hash leaks nothing guessable.
   */
  record: Record<string, unknown>;
  /**
   * Only on a redaction record: the tombstone of the range it redacts, part of the entry's
   * preimage (evidence-format.md §7).
   */
  tombstone?: Tombstone;
}

export interface Appended {
  sequence: number;
  receiptId: string;
  recordHash: string;
}

/**
 * Append one record to a tenant's journal. Must run inside the caller's write transaction,
 * together with the state change it records: per-tenant sequence, chain and Merkle frontier
 * are read and written here in O(log n), never by rescanning the log.
 */
export class JournalWriter {
  private readonly writeState;
  private readonly insert;
  private readonly insertNode;

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
  }

  append(a: JournalAppend, linkedAt: string): Appended {
    if (!this.db.inTransaction) throw new Error('journal appends run inside the state change’s transaction');
    const state = readLogState(this.db, a.tenantId) ?? emptyLogState(a.tenantId, sha256);
    // record_hash = hex(H(CJSON(record))); the canonical text is what is stored, so the
    // stored record re-hashes to the published value.
    const canonical = cjson(a.record);
    const hash = encodeHex(sha256(encodeUtf8(canonical)));
    const {
      entry,
      state: next,
      subtrees,
    } = linkEntry(
      state,
      {
        tenant_id: a.tenantId,
        record_hash: hash,
        intent_id: a.intentId,
        actor_id: a.actorId,
        capability: a.capability,
        tier: a.tier,
        allowed: a.allowed,
        grant_id: a.grantId,
        amount_usd: formatUsd(a.amountMicros),
        occurred_at: a.occurredAt,
        linked_at: linkedAt,
        ...(a.tombstone ? { tombstone: a.tombstone } : {}),
      },
      sha256,
    );
    this.insert.run(
      a.tenantId,
      entry.sequence,
      a.kind,
      a.receiptId,
      a.taskId,
      canonical,
      hash,
      a.intentId,
      a.actorId,
      a.capability,
      a.tier,
      a.allowed ? 1 : 0,
      a.grantId,
      a.amountMicros,
      a.occurredAt,
      linkedAt,
      a.tombstone ? cjson(a.tombstone) : null,
      entry.leaf,
      entry.chain_hash,
    );
    // Amortised one row per append: what makes every proof O(log n) reads (merkle-nodes.ts).
    for (const node of subtrees) this.insertNode.run(a.tenantId, node.level, node.index, blob(node.hash));
    this.writeState.run(a.tenantId, next.size, next.chainHash, JSON.stringify(next.frontier));
    return { sequence: entry.sequence, receiptId: a.receiptId, recordHash: hash };
  }
}

/** better-sqlite3 binds Buffers, not plain Uint8Arrays: a view, no copy. */
export function blob(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
