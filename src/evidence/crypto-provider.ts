import { encodeUtf8, isWellFormedUnicode } from './encoding.js';

/**
 * The crypto the evidence layer needs, injected so the same code runs on `node:crypto`
 * (the CLI verifier) and on `@noble` (the console's in-browser verifier).
 */

/**
 * SHA-256 of the bytes (evidence-format.md §1, `H`). A provider may also hash a string's
 * UTF-8 bytes itself (`text`); use `sha256OfText`, which checks the string first.
 */
export interface Sha256 {
  (data: Uint8Array): Uint8Array;
  /** `H(UTF8(text))` of a string with no lone surrogate, without a separate encoding step */
  readonly text?: (text: string) => Uint8Array;
}

/**
 * `H(UTF8(text))`. Refuses a lone surrogate as `encodeUtf8` does (a native text hash would
 * hash U+FFFD in its place): the same answer and the same refusal whichever provider hashes.
 */
export function sha256OfText(sha256: Sha256, text: string): Uint8Array {
  if (sha256.text === undefined) return sha256(encodeUtf8(text));
  if (!isWellFormedUnicode(text))
    throw new TypeError('string holds a lone surrogate and has no UTF-8 encoding');
  return sha256.text(text);
}

/** An Ed25519 signing function bound to one private key; returns the 64-byte signature. */
export type Ed25519Sign = (message: Uint8Array) => Uint8Array;

export interface CryptoProvider {
  readonly name: string;
  sha256: Sha256;
  /**
   * Strict RFC 8032 verification (evidence-format.md §1). Never throws: a key or signature
   * of the wrong length, a non-canonical encoding or a small-order key yields `false`.
   */
  verifyEd25519(publicKeyRaw: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
}
