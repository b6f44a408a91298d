import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { keyIdOf } from './key-id.js';
import { sha256 } from './node-crypto.js';

/** evidence-format.md §1: `ed25519-` + the first 16 hex digits of H(raw public key). */
export function keyIdFor(rawPublicKey: Uint8Array): string {
  return keyIdOf(rawPublicKey, sha256);
}

/** The 32 raw bytes of an Ed25519 public key object. */
export function rawPublicKey(key: KeyObject): Uint8Array {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  if (pub.asymmetricKeyType !== 'ed25519') throw new TypeError('not an Ed25519 key');
  const jwk = pub.export({ format: 'jwk' });
  return new Uint8Array(Buffer.from(jwk.x as string, 'base64url'));
}

export interface SigningKeyMaterial {
  keyId: string;
  /** base64 of the 32 raw public key bytes, as auditors pin it. */
  publicKey: string;
  /** PKCS#8 PEM of the private key; the caller stores it with mode 0600. */
  privateKeyPem: string;
}

/** A fresh Ed25519 journal signing key. */
export function newSigningKey(): SigningKeyMaterial {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = rawPublicKey(publicKey);
  return {
    keyId: keyIdFor(raw),
    publicKey: Buffer.from(raw).toString('base64'),
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

/** Parse a PKCS#8 PEM private key and check that it is Ed25519. */
export function parseSigningKey(pem: string): KeyObject {
  const key = createPrivateKey({ key: pem, format: 'pem' });
  if (key.asymmetricKeyType !== 'ed25519') throw new TypeError('the signing key is not Ed25519');
  return key;
}

/** The PEM SPKI form of a raw public key, for auditors who want a file. */
export function publicKeyPem(rawPublic: Uint8Array): string {
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(rawPublic).toString('base64url') },
    format: 'jwk',
  });
  return key.export({ format: 'pem', type: 'spki' }).toString();
}
