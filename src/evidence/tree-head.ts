import { cjson } from './cjson.js';
import type { CryptoProvider, Ed25519Sign } from './crypto-provider.js';
import { decodeBase64, encodeBase64, encodeHex, encodeUtf8 } from './encoding.js';

/** A signed tree head (interface-spec.md treeHead; evidence-format.md §6). */
export interface TreeHead {
  log_id: string;
  /** Equals tree_size: the sequence of the last entry covered. */
  index: number;
  root_hash: string;
  tree_size: number;
  signed_at: string;
  /** base64 of the 64-byte Ed25519 signature over headPayload. */
  signature: string;
}

export type UnsignedTreeHead = Omit<TreeHead, 'signature'>;

/** The head a log signs over `treeSize` items whose root is `root`. */
export function unsignedTreeHead(
  logId: string,
  treeSize: number,
  root: Uint8Array,
  signedAt: string,
): UnsignedTreeHead {
  if (!Number.isSafeInteger(treeSize) || treeSize < 0) {
    throw new RangeError('tree size is a safe integer >= 0');
  }
  if (root.length !== 32) throw new RangeError('a root hash is 32 bytes');
  return {
    log_id: logId,
    index: treeSize,
    root_hash: encodeHex(root),
    tree_size: treeSize,
    signed_at: signedAt,
  };
}

/**
 * `head_payload = CJSON(head without "signature")`: the exact text the log key signs. It
 * takes any object so a verifier can compute it over a head exactly as written, unknown
 * fields included (they then break the signature, as they should).
 */
export function headPayload(head: object): string {
  return cjson(Object.fromEntries(Object.entries(head).filter(([key]) => key !== 'signature')));
}

export function signTreeHead(head: UnsignedTreeHead, sign: Ed25519Sign): TreeHead {
  const signature = sign(encodeUtf8(headPayload(head)));
  if (signature.length !== 64) throw new RangeError('an Ed25519 signature is 64 bytes');
  return { ...head, signature: encodeBase64(signature) };
}

/**
 * True when the head's signature is strict base64 of 64 bytes and verifies under the raw
 * public key. A caller that must tell the reasons apart (the verifier) decodes itself.
 */
export function verifyTreeHead(head: TreeHead, publicKeyRaw: Uint8Array, crypto: CryptoProvider): boolean {
  const signature = decodeBase64(head.signature);
  if (signature?.length !== 64) return false;
  return crypto.verifyEd25519(publicKeyRaw, encodeUtf8(headPayload(head)), signature);
}
