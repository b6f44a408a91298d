import type { HeadSigner, StoredHead } from '../core/anchor.js';
import type { RedactionRequest, RedactionResult } from '../core/redaction.js';
import type { ExportItem } from '../evidence/export-writer.js';
import type { Timestamp, Witness } from '../evidence/export-line.js';

// Anchoring is a use case of core (core/anchor.ts): its head and signer types live there.
export type { HeadSigner, StoredHead } from '../core/anchor.js';

/** How far a tenant's log runs ahead of its last stored head. */
export interface AnchorBacklog {
  tenantId: string;
  size: number;
  anchoredSize: number;
  /** `linked_at` of the first entry no head covers; null when every entry is covered. */
  firstUnanchoredAt: string | null;
}

export interface AnchorRepo {
  /**
   * Sign the head over every entry the tenant's log holds now. A size that already has a
   * head gets that head back (`created: false`), so no two heads of one log disagree at a
   * size. An empty log is refused: a head over nothing commits to nothing.
   */
  signCurrent(
    tenantId: string,
    signer: HeadSigner,
    signedAt: string,
  ): Promise<{ anchor: StoredHead; created: boolean }>;
  /** Every tenant with a journal, cheaply: no scan of any log. */
  backlog(): Promise<AnchorBacklog[]>;
  /** In tree-size order. */
  list(tenantId: string): Promise<StoredHead[]>;
  /** The head of the largest size, with its timestamp and cosignatures; undefined before the first. */
  latest(tenantId: string): Promise<StoredHead | undefined>;
  /** Record the anchor's timestamp; once per anchor (a second is a conflict). */
  recordTimestamp(tenantId: string, treeSize: number, timestamp: Timestamp): Promise<void>;
  /** Record one witness's cosignature of the anchor; once per witness id. */
  recordWitness(tenantId: string, treeSize: number, witness: Witness): Promise<void>;
}

/** RFC 6962 proofs over a tenant's journal, each O(log n) reads. */
export interface ProofRepo {
  /** The audit path of entry `sequence` (leaf index sequence - 1) in the tree of `treeSize` entries. */
  inclusion(tenantId: string, sequence: number, treeSize: number): Promise<Uint8Array[]>;
  /** The consistency proof from the tree of `size1` entries to the tree of `size2`. */
  consistency(tenantId: string, size1: number, size2: number): Promise<Uint8Array[]>;
}

/** A value now (SQLite reads synchronously) or later (PostgreSQL): callers await either. */
export type Awaitable<T> = T | Promise<T>;

/**
 * A consistent read of one tenant's journal for an export: what it returns does not move
 * while the daemon appends, so the file is one state of the log.
 */
export interface JournalSnapshot {
  /** Entries in the log at the snapshot. */
  readonly size: number;
  /** True when a redaction record past `size` redacted entries at or below it. */
  redactedPast(size: number): Awaitable<boolean>;
  /** Stored heads with tree_size <= size. */
  anchorCount(size: number): Awaitable<number>;
  /** The ids of the keys that signed those heads, in the order they first signed one. */
  anchorKeyIds(size: number): Awaitable<string[]>;
  /** Entries 1..size with their anchors, in file order, a page at a time; `skipAnchorAt` leaves one head out. */
  items(size: number, opts: { skipAnchorAt?: number }): AsyncIterable<ExportItem[]>;
  /** Entries 1..size as stored: the full record and the record_hash that commits to it, a page at a time. */
  records(size: number): AsyncIterable<StoredRecord[]>;
  close(): Awaitable<void>;
}

/** One journal row's full internal record (JSON text) and its stored record_hash (hex). */
export interface StoredRecord {
  sequence: number;
  record: string;
  recordHash: string;
}

export interface JournalExports {
  snapshot(tenantId: string): Awaitable<JournalSnapshot>;
}

// The redaction use case runs in core (core/redaction.ts); the port names what it takes and gives.
export type { RedactionRequest, RedactionResult };

export interface Redactions {
  /** Journal R and blank the range in place, in one transaction (evidence-format.md §7). */
  redact(request: RedactionRequest): Promise<RedactionResult>;
}

export interface EvidencePorts {
  readonly anchors: AnchorRepo;
  readonly proofs: ProofRepo;
  readonly journalExports: JournalExports;
  readonly redactions: Redactions;
}
