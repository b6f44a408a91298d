import * as ed from '@noble/ed25519';
import { sha256 as nobleSha256, sha512 } from '@noble/hashes/sha2.js';
import type { CryptoProvider } from './crypto-provider.js';

// @noble/ed25519 needs a synchronous SHA-512 before its sync API works.
ed.hashes.sha512 = sha512;

function verifyEd25519(publicKeyRaw: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    // zip215: false is the library's strict branch; the default accepts more (ZIP-215).
    return ed.verify(signature, message, publicKeyRaw, { zip215: false });
  } catch {
    return false;
  }
}

/**
 * The pure-JavaScript provider for the in-browser verifier. It is not interchangeable with
 * node:crypto on crafted inputs (it checks the cofactored equation), see the provider test.
 */
export const nobleCrypto: CryptoProvider = {
  name: '@noble/ed25519',
  sha256: (data) => nobleSha256(data),
  verifyEd25519,
};
