import { formatUsd } from './amount.js';
import { cjson } from './cjson.js';
import { sha256OfText, type Sha256 } from './crypto-provider.js';
import { encodeHex } from './encoding.js';
import type { Tombstone } from './export-line.js';
import { emptyLogState, linkEntry, type LogState } from './journal-entry.js';
import type { CompletedSubtree } from './merkle-subtrees.js';

export type JournalKind =
  | 'decision'
  | 'observation'
  | 'grant_effect'
  | 'approval'
  | 'execution'
  | 'redaction'
  | 'integration_op'
  | 'access';

/** One record to append to a tenant's journal: what every journaled write hands the store. */
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
  amountMicros: bigint;
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
 * The exact `journal` row an append writes, column for column (snake_case names in the
 * schema). `record` is the canonical text, so the stored record re-hashes to `recordHash`.
 */
export interface JournalRow {
  tenantId: string;
  sequence: number;
  kind: JournalKind;
  receiptId: string;
  taskId: string | null;
  record: string;
  recordHash: string;
  intentId: string;
  actorId: string;
  capability: string;
  tier: number;
  /** 0/1, as stored */
  allowed: 0 | 1;
  grantId: string;
  amountMicros: bigint;
  occurredAt: string;
  linkedAt: string;
  /** canonical JSON of the tombstone, or null */
  tombstone: string | null;
  leaf: string;
  chainHash: string;
}

/**
 * Everything one append writes, computed without touching a store: the journal row, the
 * tenant's log state after it (`journal_state`: size, chain hash, frontier) and the complete
 * Merkle subtrees it finished (`merkle_nodes`). An adapter writes all three in the
 * transaction that read `state`, together with the state change the record describes.
 */
export interface JournalWrite {
  row: JournalRow;
  state: LogState;
  /** JSON text of `state.frontier`, as `journal_state.frontier` stores it */
  frontierText: string;
  subtrees: CompletedSubtree[];
  appended: Appended;
}

/**
 * The one place a hashed journal record is built. `state` is the tenant's stored log state
 * (undefined before its first entry); `linkedAt` is when the entry joins the chain.
 */
export function journalWrite(
  state: LogState | undefined,
  a: JournalAppend,
  linkedAt: string,
  sha256: Sha256,
): JournalWrite {
  const from = state ?? emptyLogState(a.tenantId, sha256);
  // record_hash = hex(H(CJSON(record))); canonicalised once, and that text is what is stored.
  const canonical = cjson(a.record);
  const hash = encodeHex(sha256OfText(sha256, canonical));
  const {
    entry,
    state: next,
    subtrees,
  } = linkEntry(
    from,
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
      // undefined leaves it out of the preimage (linkEntry), as on every non-redaction entry
      tombstone: a.tombstone,
    },
    sha256,
  );
  return {
    row: {
      tenantId: a.tenantId,
      sequence: entry.sequence,
      kind: a.kind,
      receiptId: a.receiptId,
      taskId: a.taskId,
      record: canonical,
      recordHash: hash,
      intentId: a.intentId,
      actorId: a.actorId,
      capability: a.capability,
      tier: a.tier,
      allowed: a.allowed ? 1 : 0,
      grantId: a.grantId,
      amountMicros: a.amountMicros,
      occurredAt: a.occurredAt,
      linkedAt,
      tombstone: a.tombstone ? cjson(a.tombstone) : null,
      leaf: entry.leaf,
      chainHash: entry.chain_hash,
    },
    state: next,
    frontierText: JSON.stringify(next.frontier),
    subtrees,
    appended: { sequence: entry.sequence, receiptId: a.receiptId, recordHash: hash },
  };
}
