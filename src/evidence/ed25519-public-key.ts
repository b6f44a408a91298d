import { encodeHex } from './encoding.js';

/**
 * Encodings whose point has small order (the eight torsion points, both sign bits): a key
 * like this lets anyone forge signatures (R = identity, S = 0 verifies for every message),
 * and OpenSSL, hence node:crypto, accepts signatures under it. Listed as y-coordinates
 * (low 255 bits, hex, little-endian) so the check needs no curve arithmetic.
 */
const SMALL_ORDER_Y = new Set([
  '0000000000000000000000000000000000000000000000000000000000000000', // order 4
  '0100000000000000000000000000000000000000000000000000000000000000', // identity
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // order 2 (y = p - 1)
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', // order 8
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', // order 8
]);

/** p = 2^255 - 19, little-endian. */
const FIELD_PRIME_LE = Uint8Array.from([0xed, ...new Array<number>(30).fill(0xff), 0x7f]);

/**
 * Why raw bytes are not a usable Ed25519 public key under evidence-format.md §1 (strict:
 * canonical encoding, not small order), or `undefined` when they are. A point that is
 * not on the curve is left to the signature check, which fails for it.
 */
export function ed25519PublicKeyProblem(raw: Uint8Array): string | undefined {
  if (raw.length !== 32) return `an Ed25519 public key is 32 bytes, not ${raw.length}`;
  // A copy: Buffer.prototype.slice would return a view and the mask below would change the caller's key.
  const y = new Uint8Array(raw);
  y[31] = y[31]! & 0x7f;
  if (!lessThanLittleEndian(y, FIELD_PRIME_LE)) return 'the key is not canonically encoded (y >= p)';
  if (SMALL_ORDER_Y.has(encodeHex(y))) return 'the key is a small-order point';
  return undefined;
}

function lessThanLittleEndian(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = a.length - 1; i >= 0; i--) {
    if (a[i]! !== b[i]!) return a[i]! < b[i]!;
  }
  return false;
}
