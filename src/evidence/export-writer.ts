import { cjson } from './cjson.js';
import type { Sha256 } from './crypto-provider.js';
import { encodeBase64 } from './encoding.js';
import {
  EXPORT_FORMAT,
  type AnchorLine,
  type EntryLine,
  type ExportLine,
  type HeaderLine,
  type Timestamp,
  type Witness,
} from './export-line.js';
import { keyIdOf } from './key-id.js';
import { logIdFor } from './log-id.js';
import type { TreeHead } from './tree-head.js';

/**
 * Builds the lines of an `svc.export/v1` file (interface-spec.md, evidence-format.md §6, §8).
 * Pure: rows come in from the store, text goes out to whatever the caller writes to.
 */

export const SIGNATURE_ALGORITHM = 'ed25519';

export interface HeaderInput {
  tenantId: string;
  exportedAt: string;
  /** Signed over every entry of the export. */
  head: TreeHead;
  /** The 32 raw bytes of the key that signed `head`. */
  publicKey: Uint8Array;
  /** True when the file carries no anchor line. */
  preAnchor: boolean;
}

export function headerLine(input: HeaderInput, sha256: Sha256): HeaderLine {
  const line: HeaderLine = {
    type: 'header',
    schema: EXPORT_FORMAT,
    log_id: logIdFor(input.tenantId, sha256),
    tenant_id: input.tenantId,
    exported_at: input.exportedAt,
    entry_count: input.head.tree_size,
    head: input.head,
    public_key: encodeBase64(input.publicKey),
    signing_key_id: keyIdOf(input.publicKey, sha256),
    signature_algorithm: SIGNATURE_ALGORITHM,
  };
  // §6: the flag appears only on a file without anchors; `false` would say nothing more.
  if (input.preAnchor) line.pre_anchor = true;
  return line;
}

export function anchorLine(
  head: TreeHead,
  keyId: string,
  attestations: { timestamp?: Timestamp; witnesses?: readonly Witness[] } = {},
): AnchorLine {
  const line: AnchorLine = { type: 'anchor', head, key_id: keyId, algorithm: SIGNATURE_ALGORITHM };
  if (attestations.timestamp !== undefined) line.timestamp = attestations.timestamp;
  if (attestations.witnesses !== undefined && attestations.witnesses.length > 0) {
    line.witnesses = [...attestations.witnesses];
  }
  return line;
}

/** One line of the file: its RFC 8785 form and the terminating newline (§8). */
export function lineText(line: ExportLine): string {
  return cjson(line) + '\n';
}

export type ExportItem = EntryLine | AnchorLine;

/**
 * The body of an export after its header: entries 1..n in order, each anchor directly after
 * the entry its tree_size names (§3, §6). The producer refuses to write a file it knows is
 * out of order; tampering with the store still shows, because the verifier recomputes
 * every hash.
 */
export async function* exportBody(
  entryCount: number,
  items: AsyncIterable<readonly ExportItem[]>,
): AsyncGenerator<string> {
  let sequence = 0;
  for await (const batch of items) {
    let text = '';
    for (const item of batch) {
      if (item.type === 'entry') {
        if (item.sequence !== sequence + 1 || item.sequence > entryCount) {
          throw new RangeError(`the journal yielded entry ${item.sequence} after entry ${sequence}`);
        }
        sequence = item.sequence;
      } else if (item.head.tree_size !== sequence) {
        throw new RangeError(`anchor for tree size ${item.head.tree_size} does not follow entry ${sequence}`);
      }
      text += lineText(item);
    }
    if (text !== '') yield text;
  }
  if (sequence !== entryCount) {
    throw new RangeError(`the journal yielded ${sequence} entries; the head covers ${entryCount}`);
  }
}
