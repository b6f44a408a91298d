import type { Ed25519Sign } from '../evidence/crypto-provider.js';
import type { ExportItem } from '../evidence/export-writer.js';
import type { Tombstone } from '../evidence/export-line.js';
import type { TreeHead } from '../evidence/tree-head.js';

/** A signed tree head as stored: the head and the key that signed it. */
export interface StoredHead {
  tenantId: string;
  head: TreeHead;
  keyId: string;
  algorithm: 'ed25519';
}

/** The tenant's active signing key, ready to sign. */
export interface HeadSigner {
  keyId: string;
  sign: Ed25519Sign;
}

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
}

/**
 * A consistent read of one tenant's journal for an export: what it returns does not move
 * while the daemon appends, so the file is one state of the log.
 */
export interface JournalSnapshot {
  /** Entries in the log at the snapshot. */
  readonly size: number;
  /** True when a redaction record past `size` redacted entries at or below it. */
  redactedPast(size: number): boolean;
  /** Stored heads with tree_size <= size. */
  anchorCount(size: number): number;
  /** The ids of the keys that signed those heads, in the order they first signed one. */
  anchorKeyIds(size: number): string[];
  /** Entries 1..size with their anchors, in file order, a page at a time; `skipAnchorAt` leaves one head out. */
  items(size: number, opts: { skipAnchorAt?: number }): AsyncIterable<ExportItem[]>;
  close(): void;
}

export interface JournalExports {
  snapshot(tenantId: string): JournalSnapshot;
}

export interface RedactionRequest {
  tenantId: string;
  from: number;
  to: number;
  reason: string;
  authorisedBy: string;
  policyId?: string;
  at: string;
}

export interface RedactionResult {
  tombstone: Tombstone;
  /** Sequence and receipt of the redaction record R. */
  sequence: number;
  receiptId: string;
}

export interface Redactions {
  /** Journal R and blank the range in place, in one transaction (evidence-format.md §7). */
  redact(request: RedactionRequest): Promise<RedactionResult>;
}

export interface EvidencePorts {
  readonly anchors: AnchorRepo;
  readonly journalExports: JournalExports;
  readonly redactions: Redactions;
}
