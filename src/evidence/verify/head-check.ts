import { decodeBase64, encodeUtf8 } from '../encoding.js';
import { LOG_ID_PREFIX } from '../log-id.js';
import { headPayload } from '../tree-head.js';
import { asSafeInteger, asString, type JsonObject } from './field-readers.js';
import type { VerifierState } from './state.js';
import type { TrustedKey } from './trust.js';

/**
 * Checks every tree head gets, the header's and each anchor's (§2, §6): its log id, its
 * index, and its signature under the trusted keys only. Returns the trusted key that
 * verified it, or undefined. Decoding and length are separate findings (§6).
 */
export function checkTreeHead(
  state: VerifierState,
  at: number,
  head: JsonObject,
  label: string,
  preferKeyId?: string,
): TrustedKey | undefined {
  const { sink } = state;
  const logId = asString(head.log_id);
  const expected = state.header?.logId;
  // A log id without the prefix was reported as legacy_log_id by the schema check.
  if (logId?.startsWith(LOG_ID_PREFIX) && expected !== undefined && logId !== expected) {
    sink.add('log_id_mismatch', at, `${label} log_id ${logId} is not this tenant's log (${expected})`);
  }
  const index = asSafeInteger(head.index);
  const treeSize = asSafeInteger(head.tree_size);
  if (index !== undefined && treeSize !== undefined && index !== treeSize) {
    sink.add('head_index_mismatch', at, `${label} index ${index} differs from its tree_size ${treeSize}`);
  }

  const encoded = asString(head.signature);
  if (encoded === undefined) return undefined;
  const signature = decodeBase64(encoded);
  if (signature === undefined) {
    sink.add('signature_encoding', at, `${label} signature is not strict base64`);
    return undefined;
  }
  if (signature.length !== 64) {
    sink.add('signature_length', at, `${label} signature decodes to ${signature.length} bytes, not 64`);
    return undefined;
  }
  let payload: Uint8Array;
  try {
    payload = encodeUtf8(headPayload(head));
  } catch {
    return undefined; // a lone surrogate, already reported
  }
  const ordered = [...state.trustedKeys].sort(
    (a, b) => Number(b.keyId === preferKeyId) - Number(a.keyId === preferKeyId),
  );
  const key = ordered.find((candidate) => state.crypto.verifyEd25519(candidate.raw, payload, signature));
  if (key === undefined) {
    const named =
      preferKeyId !== undefined && !state.trustedKeys.some((k) => k.keyId === preferKeyId)
        ? ` (it names ${preferKeyId}, which is not among the trusted keys)`
        : '';
    sink.add('signature_invalid', at, `${label} signature does not verify under any trusted key${named}`);
  }
  return key;
}
