import { cjson } from './cjson.js';
import type { CryptoProvider, Ed25519Sign } from './crypto-provider.js';
import { decodeBase64, encodeBase64, encodeUtf8 } from './encoding.js';

/**
 * evidence-format.md §6.2: a witness cosignature, domain-separated from the log's own head
 * signature so neither can stand for the other:
 * `CJSON({"type": "svc.cosignature/v1", "head": <head without signature>, "signed_at": …})`.
 */
export const COSIGNATURE_TYPE = 'svc.cosignature/v1';

export function cosignaturePayload(head: object, signedAt: string): string {
  const unsigned = Object.fromEntries(Object.entries(head).filter(([key]) => key !== 'signature'));
  return cjson({ type: COSIGNATURE_TYPE, head: unsigned, signed_at: signedAt });
}

/** base64 of the witness's Ed25519 signature over the cosignature payload. */
export function signCosignature(head: object, signedAt: string, sign: Ed25519Sign): string {
  const signature = sign(encodeUtf8(cosignaturePayload(head, signedAt)));
  if (signature.length !== 64) throw new RangeError('an Ed25519 signature is 64 bytes');
  return encodeBase64(signature);
}

/** True when `signature` is strict base64 of 64 bytes verifying under the raw witness key. */
export function verifyCosignature(
  head: object,
  signedAt: string,
  signature: string,
  witnessKey: Uint8Array,
  crypto: CryptoProvider,
): boolean {
  const bytes = decodeBase64(signature);
  if (bytes?.length !== 64) return false;
  let payload: Uint8Array;
  try {
    payload = encodeUtf8(cosignaturePayload(head, signedAt));
  } catch {
    return false; // a lone surrogate has no canonical form
  }
  return crypto.verifyEd25519(witnessKey, payload, bytes);
}
