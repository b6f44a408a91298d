/**
 * The crypto the evidence layer needs, injected so the same code runs on `node:crypto`
 * (the CLI verifier) and on `@noble` (the console's in-browser verifier).
 */

/** SHA-256 of the bytes (evidence-format.md §1, `H`). */
export type Sha256 = (data: Uint8Array) => Uint8Array;

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
