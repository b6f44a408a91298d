import { bytesEqual } from '../bytes.js';
import type { Sha256 } from '../crypto-provider.js';
import { ed25519PublicKeyProblem } from '../ed25519-public-key.js';
import { keyIdOf } from '../key-id.js';

/** Trust material, given out of band: nothing in the file can add to it. */
export interface TrustOptions {
  /** Raw 32-byte Ed25519 log public keys. At least one. */
  publicKeys: readonly Uint8Array[];
  /** Fail an export that has no anchors even when it declares pre_anchor (--require-anchors). */
  requireAnchors?: boolean;
}

export interface TrustedKey {
  raw: Uint8Array;
  keyId: string;
}

/**
 * Check the trust material before reading a byte. This is the caller's input, not the
 * file's, so problems throw (the CLI exits 2: it could not run as asked).
 */
export function trustedKeysFrom(options: TrustOptions, sha256: Sha256): TrustedKey[] {
  if (!Array.isArray(options.publicKeys) || options.publicKeys.length === 0) {
    throw new TypeError('verification needs at least one trusted public key, given out of band');
  }
  const keys: TrustedKey[] = [];
  for (const raw of options.publicKeys) {
    if (!(raw instanceof Uint8Array)) throw new TypeError('a trusted public key is the 32 raw key bytes');
    const problem = ed25519PublicKeyProblem(raw);
    if (problem) throw new RangeError(`trusted public key refused: ${problem}`);
    if (!keys.some((key) => bytesEqual(key.raw, raw))) {
      keys.push({ raw: new Uint8Array(raw), keyId: keyIdOf(raw, sha256) });
    }
  }
  return keys;
}
