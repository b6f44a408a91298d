import { formatUsd } from '../../core/money.js';
import { cjson } from '../../evidence/cjson.js';
import { encodeHex, encodeUtf8 } from '../../evidence/encoding.js';
import { emptyLogState, linkEntry, type LogState } from '../../evidence/journal-entry.js';
import { sha256 } from '../../evidence/node-crypto.js';
import type { Appended, JournalAppend } from '../sqlite/journal.js';
import type { PgTx } from './database.js';

/** A tenant's stored log state; undefined before its first entry. */
export async function readLogState(tx: PgTx, tenantId: string): Promise<LogState | undefined> {
  const [row] = await tx.query<{ size: string; chain_hash: string; frontier: string }>(
    'SELECT size, chain_hash, frontier FROM journal_state WHERE tenant_id = $1',
    [tenantId],
  );
  if (row === undefined) return undefined;
  return {
    size: Number(row.size),
    chainHash: row.chain_hash,
    frontier: JSON.parse(row.frontier) as LogState['frontier'],
  };
}

// One round trip writes the entry, the Merkle subtrees it completed and the new log state.
const APPEND_SQL = `WITH entry AS (
    INSERT INTO journal (tenant_id, sequence, kind, receipt_id, task_id, record, record_hash, intent_id, actor_id,
      capability, tier, allowed, grant_id, amount_micros, occurred_at, linked_at, tombstone, leaf, chain_hash)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
  ), nodes AS (
    INSERT INTO merkle_nodes (tenant_id, level, idx, hash)
    SELECT $1, n.level, n.idx, n.hash FROM unnest($20::bigint[], $21::bigint[], $22::bytea[]) AS n(level, idx, hash)
  )
  INSERT INTO journal_state (tenant_id, size, chain_hash, frontier) VALUES ($1, $2, $19, $23)
  ON CONFLICT (tenant_id) DO UPDATE SET size = excluded.size, chain_hash = excluded.chain_hash, frontier = excluded.frontier`;

/**
 * Append one record to a tenant's journal inside the caller's transaction, together with
 * the state change it records. The caller holds the tenant's advisory lock (locks.ts), taken
 * before anything was read: that is what keeps sequences contiguous and the chain and
 * Merkle frontier linear when several replicas append at once. The primary key
 * (tenant_id, sequence) is the backstop: a lost lock fails the append, never forks the log.
 */
export async function appendJournal(tx: PgTx, a: JournalAppend, linkedAt: string): Promise<Appended> {
  const state = (await readLogState(tx, a.tenantId)) ?? emptyLogState(a.tenantId, sha256);
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
  await tx.query(APPEND_SQL, [
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
    a.amountMicros.toString(),
    a.occurredAt,
    linkedAt,
    a.tombstone ? cjson(a.tombstone) : null,
    entry.leaf,
    entry.chain_hash,
    subtrees.map((n) => n.level),
    subtrees.map((n) => n.index),
    subtrees.map((n) => Buffer.from(n.hash)),
    JSON.stringify(next.frontier),
  ]);
  return { sequence: entry.sequence, receiptId: a.receiptId, recordHash: hash };
}
