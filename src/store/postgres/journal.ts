import {
  journalWrite,
  type Appended,
  type JournalAppend,
  type JournalWrite,
} from '../../evidence/journal-append.js';
import type { LogState } from '../../evidence/journal-entry.js';
import { completedAtSize } from '../../evidence/merkle-subtrees.js';
import { sha256 } from '../../evidence/node-crypto.js';
import { logStateOf, type LogStateRow } from '../rows/log-state.js';
import type { PgTx } from './database.js';
import { writeAll, type WritePart } from './write-parts.js';

/** A tenant's stored log state; undefined before its first entry. */
export async function readLogState(tx: PgTx, tenantId: string): Promise<LogState | undefined> {
  const [row] = await tx.query<LogStateRow>(
    'SELECT size, chain_hash, frontier FROM journal_state WHERE tenant_id = $1',
    [tenantId],
  );
  return row && logStateOf(row);
}

/**
 * The rows of one append (evidence/journal-append.ts computed them): the entry, the Merkle
 * subtrees it completed and the tenant's new log state, as writes for one statement.
 */
export function journalParts(w: JournalWrite): WritePart[] {
  return [entryPart(w), ...subtreesPart([w]), ...logStatePart([w])];
}

/**
 * The rows of several appends, in append order, for one statement: an entry each, every
 * completed subtree in one INSERT, and each tenant's log state once, as the last append left
 * it (two updates of one row cannot share a statement).
 */
export function journalBatchParts(writes: JournalWrite[]): WritePart[] {
  const last = new Map<string, JournalWrite>();
  for (const w of writes) last.set(w.row.tenantId, w);
  return [...writes.map(entryPart), ...subtreesPart(writes), ...logStatePart([...last.values()])];
}

function entryPart(w: JournalWrite): WritePart {
  const r = w.row;
  return {
    what: 'the journal entry',
    sql: `INSERT INTO journal (tenant_id, sequence, kind, receipt_id, task_id, record, record_hash, intent_id, actor_id,
        capability, tier, allowed, grant_id, amount_micros, occurred_at, linked_at, tombstone, leaf, chain_hash)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
    params: [
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
      r.amountMicros.toString(),
      r.occurredAt,
      r.linkedAt,
      r.tombstone,
      r.leaf,
      r.chainHash,
    ],
  };
}

/**
 * Amortised one row per append: what makes every proof O(log n) reads (merkle-nodes.ts).
 * Keyed by the size that completed them, then level, so each append's follow the last one's.
 */
function subtreesPart(writes: JournalWrite[]): WritePart[] {
  const nodes = writes.flatMap((w) => w.subtrees.map((n) => ({ tenantId: w.row.tenantId, ...n })));
  if (nodes.length === 0) return [];
  return [
    {
      what: 'the Merkle subtrees',
      sql: `INSERT INTO merkle_nodes (tenant_id, at_size, level, hash)
        SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bytea[])`,
      params: [
        nodes.map((n) => n.tenantId),
        nodes.map((n) => completedAtSize(n.level, n.index)),
        nodes.map((n) => n.level),
        nodes.map((n) => Buffer.from(n.hash)),
      ],
    },
  ];
}

/**
 * Each tenant's new log state (one write per tenant), every row changed: one statement text
 * however many tenants (their rows as JSON, as write-parts.ts merges inserts).
 */
function logStatePart(writes: JournalWrite[]): WritePart[] {
  const rows = writes.map((w) => ({
    tenant_id: w.row.tenantId,
    size: w.state.size,
    chain_hash: w.state.chainHash,
    frontier: w.frontierText,
  }));
  return [
    {
      what: 'the log state',
      sql: `INSERT INTO journal_state (tenant_id, size, chain_hash, frontier)
        SELECT r.tenant_id, r.size, r.chain_hash, r.frontier
        FROM json_populate_recordset(NULL::journal_state, $1::json) AS r
        ON CONFLICT (tenant_id) DO UPDATE SET size = excluded.size, chain_hash = excluded.chain_hash,
          frontier = excluded.frontier`,
      params: [JSON.stringify(rows)],
      expectRows: writes.length,
    },
  ];
}

/**
 * Append one record to a tenant's journal inside the caller's transaction, together with
 * the state change it records. What is written is computed by `journalWrite`
 * (evidence/journal-append.ts, the one place a hashed record is built); this only stores
 * it. The caller holds the tenant's advisory lock (locks.ts), taken before anything was
 * read: that keeps sequences contiguous and the chain and Merkle frontier linear when
 * several replicas append at once. The primary key (tenant_id, sequence) is the backstop:
 * a missing lock fails the append, never forks the log.
 */
export async function appendJournal(tx: PgTx, a: JournalAppend, linkedAt: string): Promise<Appended> {
  const w = journalWrite(await readLogState(tx, a.tenantId), a, linkedAt, sha256);
  await writeAll(tx, journalParts(w));
  return w.appended;
}
