import type { Sha256 } from './crypto-provider.js';
import { encodeHex } from './encoding.js';

/**
 * evidence-format.md §1: `ed25519-` + the first 16 hex digits of H(raw public key). The
 * same rule as keys.ts keyIdFor, with the hash injected so the in-browser verifier can use
 * it; an id names a key and never establishes trust.
 */
export function keyIdOf(rawPublicKey: Uint8Array, sha256: Sha256): string {
  if (rawPublicKey.length !== 32) throw new RangeError('an Ed25519 public key is 32 bytes');
  return 'ed25519-' + encodeHex(sha256(rawPublicKey)).slice(0, 16);
}
