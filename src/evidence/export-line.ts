/**
 * The line shapes of an `svc.export/v1` file (interface-spec.md, "Evidence export file").
 * schema.ts is the published JSON Schema for the same shapes.
 */
import type { TreeHead } from './tree-head.js';

export const EXPORT_FORMAT = 'svc.export/v1';

/** evidence-format.md §8: a longer line is a finding and is not parsed. */
export const MAX_LINE_BYTES = 1024 * 1024;

export interface HeaderLine {
  type: 'header';
  schema: typeof EXPORT_FORMAT;
  log_id: string;
  tenant_id: string;
  exported_at: string;
  entry_count: number;
  head: TreeHead;
  /** base64 of the 32 raw bytes; informative only, a verifier trusts keys given out of band. */
  public_key: string;
  signing_key_id: string;
  signature_algorithm: string;
  pre_anchor?: boolean;
}

export interface Tombstone {
  from_sequence: number;
  to_sequence: number;
  reason: string;
  authorised_by: string;
  policy_id?: string;
  record_count?: number;
  receipt_count?: number;
  removed_at: string;
}

export interface EntryLine {
  type: 'entry';
  tenant_id: string;
  sequence: number;
  record_hash: string;
  intent_id: string;
  actor_id: string;
  capability: string;
  tier: number;
  allowed: boolean;
  grant_id: string;
  amount_usd: number;
  occurred_at: string;
  linked_at: string;
  tombstone?: Tombstone;
  chain_hash: string;
  leaf: string;
}

export interface Timestamp {
  authority: string;
  digest: string;
  time: string;
  token?: string;
  noop?: boolean;
  verified?: string;
}

export interface Witness {
  witness_id: string;
  public_key?: string;
  signature: string;
  signed_at: string;
  key_holder?: string;
}

export interface AnchorLine {
  type: 'anchor';
  head: TreeHead;
  key_id?: string;
  algorithm?: string;
  timestamp?: Timestamp;
  witnesses?: Witness[];
}

export type ExportLine = HeaderLine | EntryLine | AnchorLine;
export type LineKind = ExportLine['type'];
export const LINE_KINDS: readonly LineKind[] = ['header', 'entry', 'anchor'];
