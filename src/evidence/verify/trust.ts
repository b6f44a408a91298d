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
  /** RFC 3161 trust roots (DER X.509, --tsa-cert); without any, tokens are reported unverified. */
  tsaRoots?: readonly Uint8Array[];
  /** Pinned witnesses (--witness-key ID=KEY): raw 32-byte Ed25519 keys by witness id. */
  witnessKeys?: readonly { id: string; key: Uint8Array }[];
  /** Fail unless at least this many independent witnesses cosigned the last anchor (§6.2). */
  requireWitnesses?: number;
}

export interface PinnedWitness {
  id: string;
  key: Uint8Array;
}

/** Check the pinned witnesses: caller input, so problems throw (exit 2), like the log keys. */
export function pinnedWitnessesFrom(options: TrustOptions): Map<string, PinnedWitness> {
  const pins = new Map<string, PinnedWitness>();
  for (const { id, key } of options.witnessKeys ?? []) {
    if (typeof id !== 'string' || id.length === 0) throw new TypeError('a pinned witness needs an id');
    if (!(key instanceof Uint8Array))
      throw new TypeError(`witness ${id}: a pinned key is the 32 raw key bytes`);
    const problem = ed25519PublicKeyProblem(key);
    if (problem) throw new RangeError(`witness ${id}: pinned key refused: ${problem}`);
    const previous = pins.get(id);
    if (previous !== undefined && !bytesEqual(previous.key, key)) {
      throw new RangeError(`witness ${id} is pinned to two different keys`);
    }
    pins.set(id, { id, key: new Uint8Array(key) });
  }
  const required = options.requireWitnesses ?? 0;
  if (!Number.isSafeInteger(required) || required < 0) {
    throw new RangeError('the number of required witnesses is an integer >= 0');
  }
  return pins;
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
