import { bytesEqual } from './bytes.js';
import type { CryptoProvider } from './crypto-provider.js';
import { decodeHex } from './encoding.js';
import { verifyConsistency } from './merkle-proof.js';
import { verifyTreeHead, type TreeHead } from './tree-head.js';

/**
 * What a witness checks before it cosigns a new head of a log (evidence-format.md §6.2):
 * the head's signature under the log key it pinned, then an RFC 6962 consistency proof
 * from the last head it cosigned. Pure: the witness server keeps the state and the keys.
 */

/** A witness id (`--id`): what a daemon pins and a verifier maps to a key; no `=`, so `URL=ID=KEY` splits. */
export const WITNESS_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export type CosignRefusal = 'bad_signature' | 'wrong_log' | 'empty_tree' | 'rollback' | 'fork' | 'bad_proof';

export type CosignVerdict =
  { ok: true; unchanged: boolean } | { ok: false; code: CosignRefusal; reason: string };

const refuse = (code: CosignRefusal, reason: string): CosignVerdict => ({ ok: false, code, reason });

export function judgeCosignRequest(
  logId: string,
  logKey: Uint8Array,
  last: TreeHead | undefined,
  candidate: TreeHead,
  proofHex: readonly string[],
  crypto: CryptoProvider,
): CosignVerdict {
  if (candidate.log_id !== logId) return refuse('wrong_log', `the head names log ${candidate.log_id}`);
  if (candidate.index !== candidate.tree_size) {
    return refuse('bad_signature', 'the head index differs from its tree_size');
  }
  if (candidate.tree_size < 1) return refuse('empty_tree', 'a head over the empty tree commits to nothing');
  if (!verifyTreeHead(candidate, logKey, crypto)) {
    return refuse('bad_signature', "the head's signature does not verify under the log's pinned key");
  }
  // The first head seen for a log needs no proof (§6.2): trust on first use, pinned after.
  if (last === undefined) {
    return proofHex.length === 0
      ? { ok: true, unchanged: false }
      : refuse('bad_proof', 'the first head of a log takes an empty proof');
  }
  const root1 = decodeHex(last.root_hash);
  const root2 = decodeHex(candidate.root_hash);
  if (root1?.length !== 32 || root2?.length !== 32)
    return refuse('bad_proof', 'a root hash is not 32 bytes of hex');
  if (candidate.tree_size < last.tree_size) {
    return refuse(
      'rollback',
      `the head's size ${candidate.tree_size} is below the ${last.tree_size} already cosigned`,
    );
  }
  if (candidate.tree_size === last.tree_size && !bytesEqual(root1, root2)) {
    return refuse('fork', `another root at size ${candidate.tree_size}, which was already cosigned`);
  }
  const proof: Uint8Array[] = [];
  for (const hex of proofHex) {
    const node = decodeHex(hex);
    if (node?.length !== 32) return refuse('bad_proof', 'a proof hash is not 32 bytes of hex');
    proof.push(node);
  }
  if (!verifyConsistency(last.tree_size, candidate.tree_size, root1, root2, proof, crypto.sha256)) {
    return refuse(
      'bad_proof',
      `the proof does not show size ${candidate.tree_size} extends the cosigned size ${last.tree_size}`,
    );
  }
  return { ok: true, unchanged: candidate.tree_size === last.tree_size };
}
