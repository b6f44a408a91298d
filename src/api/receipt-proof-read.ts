import type { Actor } from '../core/actor.js';
import { SvcError } from '../core/errors.js';
import { encodeHex } from '../evidence/encoding.js';
import type { AnchorLine, EntryLine } from '../evidence/export-line.js';
import { anchorLine } from '../evidence/export-writer.js';
import type { Store } from '../store/ports.js';

export interface ReceiptProofBody {
  entry: EntryLine;
  leaf_index: number;
  tree_size: number;
  audit_path: string[];
  anchor: AnchorLine;
}

/**
 * The receipt's entry, its RFC 6962 inclusion proof and the latest signed head (with its
 * timestamp and cosignatures): everything `svc verify receipt` needs offline. Null while no
 * anchor covers the entry yet. The proof is O(log n) reads (merkle-nodes.ts).
 */
export async function receiptProof(
  store: Store,
  viewer: Actor,
  receiptId: string,
): Promise<ReceiptProofBody | null> {
  const entry = await store.receipts.entryOf(viewer, receiptId);
  if (entry === undefined) throw new SvcError('not_found', 'no such receipt');
  const latest = await store.anchors.latest(viewer.tenantId);
  if (latest === undefined || latest.head.tree_size < entry.sequence) return null;
  const size = latest.head.tree_size;
  const path = await store.proofs.inclusion(viewer.tenantId, entry.sequence, size);
  return {
    entry,
    leaf_index: entry.sequence - 1,
    tree_size: size,
    audit_path: path.map(encodeHex),
    anchor: anchorLine(latest.head, latest.keyId, latest),
  };
}
