import { generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import type { CryptoProvider } from '../../../src/evidence/crypto-provider.js';
import { ed25519PublicKeyProblem } from '../../../src/evidence/ed25519-public-key.js';
import { rawPublicKey } from '../../../src/evidence/keys.js';
import { nobleCrypto } from '../../../src/evidence/noble-crypto.js';
import { ed25519Signer, nodeCrypto } from '../../../src/evidence/node-crypto.js';
import { privateKeyFromSeed } from './svc-export-generator.js';
import { vectorPath } from './vector-paths.js';

ed.hashes.sha512 = sha512;

interface WycheproofCase {
  tcId: number;
  comment: string;
  flags: string[];
  msg: string;
  sig: string;
  result: 'valid' | 'invalid';
  pk: string;
}

const wycheproof = JSON.parse(readFileSync(vectorPath('ed25519/wycheproof_ed25519_test.json'), 'utf8')) as {
  numberOfTests: number;
  testGroups: { publicKey: { pk: string }; tests: Omit<WycheproofCase, 'pk'>[] }[];
};
const CASES: WycheproofCase[] = wycheproof.testGroups.flatMap((group) =>
  group.tests.map((test) => ({ ...test, pk: group.publicKey.pk })),
);
const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));

function verifyCase(provider: CryptoProvider, test: WycheproofCase): boolean {
  return provider.verifyEd25519(hex(test.pk), hex(test.msg), hex(test.sig));
}

describe('Ed25519 under the node:crypto provider: Wycheproof', () => {
  it('covers all 151 cases', () => {
    expect(wycheproof.numberOfTests).toBe(151);
    expect(CASES).toHaveLength(151);
  });

  it.each(CASES.map((test) => [test.tcId, test.result, test.flags.join(','), test] as const))(
    'tcId %i is %s (%s)',
    (_id, expected, _flags, test) => {
      expect(verifyCase(nodeCrypto, test)).toBe(expected === 'valid');
    },
  );
});

/** Where a provider's answer differs from node:crypto's, as "tcId: node=…, other=…". */
function disagreements(other: (test: WycheproofCase) => boolean): string[] {
  return CASES.filter((test) => verifyCase(nodeCrypto, test) !== other(test)).map(
    (test) =>
      `${test.tcId}: node=${verifyCase(nodeCrypto, test)}, other=${other(test)} (${test.flags.join(',')})`,
  );
}

describe('Ed25519: @noble against node:crypto over the same vectors', () => {
  it('strict @noble (zip215: false) agrees on every Wycheproof case', () => {
    expect(disagreements((test) => verifyCase(nobleCrypto, test))).toEqual([]);
  });

  it('lenient @noble (its ZIP-215 default) would accept tcId 151, which is why the provider is strict', () => {
    const lenient = (test: WycheproofCase): boolean => {
      try {
        return ed.verify(hex(test.sig), hex(test.msg), hex(test.pk));
      } catch {
        return false; // wrong lengths throw
      }
    };
    expect(disagreements(lenient)).toEqual(['151: node=false, other=true (InvalidEncoding)']);
  });

  it('the providers disagree on a crafted mixed-order key: @noble checks the cofactored equation', () => {
    // A = aB + T with T of order 8; sign with a and hash with A. [S]B = R + k(A - T), so the
    // cofactorless check (OpenSSL) fails unless 8 | k, and the cofactored one (@noble) passes.
    const L = 2n ** 252n + 27742317777372353535851937790883648493n;
    const T = ed.Point.fromHex('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05');
    const a = 0x1234567890abcdefn;
    const publicKey = ed.Point.BASE.multiply(a).add(T).toBytes();
    const leToBig = (bytes: Uint8Array): bigint =>
      bytes.reduceRight((acc, byte) => (acc << 8n) | BigInt(byte), 0n);
    const bigToLe = (n: bigint): Uint8Array =>
      Uint8Array.from({ length: 32 }, (_, i) => Number((n >> (8n * BigInt(i))) & 0xffn));
    const results = ['m0', 'm1', 'm2'].map((text, i) => {
      const message = new TextEncoder().encode(text);
      const r = 1000n + BigInt(i);
      const R = ed.Point.BASE.multiply(r).toBytes();
      const k = leToBig(sha512(Uint8Array.from([...R, ...publicKey, ...message]))) % L;
      const signature = Uint8Array.from([...R, ...bigToLe((r + k * a) % L)]);
      return {
        cofactorFree: k % 8n === 0n,
        node: nodeCrypto.verifyEd25519(publicKey, message, signature),
        noble: nobleCrypto.verifyEd25519(publicKey, message, signature),
      };
    });
    expect(results.every((result) => !result.cofactorFree)).toBe(true);
    expect(results.map(({ node, noble }) => ({ node, noble }))).toEqual(
      Array(3).fill({ node: false, noble: true }),
    );
  });
});

describe('Ed25519 public key strictness (§1: small-order and non-canonical keys fail)', () => {
  const torsion = ed.Point.fromHex('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05');
  const smallOrder = Array.from({ length: 8 }, (_, k) => torsion.multiply(BigInt(k + 1)).toBytes());
  const identity = Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 1 : 0));
  const forgery = new Uint8Array(64);
  forgery.set(identity); // R = identity, S = 0: valid for every message under the identity key

  it('flags all eight small-order points', () => {
    expect(new Set(smallOrder.map((bytes) => Buffer.from(bytes).toString('hex'))).size).toBe(8);
    for (const key of smallOrder) expect(ed25519PublicKeyProblem(key)).toMatch(/small-order/);
  });

  it('flags non-canonical encodings (y >= p) and wrong lengths', () => {
    const pPlusOne = Uint8Array.from([0xee, ...new Array<number>(30).fill(0xff), 0x7f]);
    expect(ed25519PublicKeyProblem(pPlusOne)).toMatch(/canonical/);
    expect(ed25519PublicKeyProblem(new Uint8Array(31))).toMatch(/32 bytes/);
  });

  it("leaves the caller's bytes alone (a Buffer slice would be a view)", () => {
    const key = Buffer.from(rawPublicKey(generateKeyPairSync('ed25519').publicKey));
    key[31] = key[31]! | 0x80; // the x sign bit: masked inside the check
    const before = Buffer.from(key);
    ed25519PublicKeyProblem(key);
    expect(key.equals(before)).toBe(true);
  });

  it('passes ordinary keys', () => {
    for (let i = 0; i < 20; i++) {
      const { publicKey } = generateKeyPairSync('ed25519');
      expect(ed25519PublicKeyProblem(rawPublicKey(publicKey))).toBeUndefined();
    }
  });

  it('refuses a forgery under a small-order key in both providers', () => {
    const message = new TextEncoder().encode('any message at all');
    expect(nodeCrypto.verifyEd25519(identity, message, forgery)).toBe(false);
    expect(nobleCrypto.verifyEd25519(identity, message, forgery)).toBe(false);
  });
});

describe('Ed25519 round trip and SHA-256 in both providers', () => {
  it('verifies what node signs and refuses a flipped bit or a short signature', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const publicKey = rawPublicKey(privateKey);
    const message = new TextEncoder().encode('{"index":1}');
    const signature = ed25519Signer(privateKey)(message);
    expect(Buffer.from(signature).equals(nodeSign(null, message, privateKey))).toBe(true);
    for (const provider of [nodeCrypto, nobleCrypto]) {
      expect(provider.verifyEd25519(publicKey, message, signature)).toBe(true);
      const flipped = signature.slice();
      flipped[10]! ^= 1;
      expect(provider.verifyEd25519(publicKey, message, flipped)).toBe(false);
      expect(provider.verifyEd25519(publicKey, message, signature.subarray(0, 63))).toBe(false);
      expect(provider.verifyEd25519(publicKey.subarray(0, 31), message, signature)).toBe(false);
    }
  });

  it('signs the RFC 8032 section 7.1 TEST 1 and TEST 2 vectors exactly', () => {
    const vectors = [
      {
        seed: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
        publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
        message: '',
        signature:
          'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
      },
      {
        seed: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
        publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
        message: '72',
        signature:
          '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
      },
    ];
    for (const vector of vectors) {
      const privateKey = privateKeyFromSeed(vector.seed);
      expect(Buffer.from(rawPublicKey(privateKey)).toString('hex')).toBe(vector.publicKey);
      expect(Buffer.from(ed25519Signer(privateKey)(hex(vector.message))).toString('hex')).toBe(
        vector.signature,
      );
    }
  });

  it('refuses a public key as a signing key', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    expect(() => ed25519Signer(publicKey)).toThrow(TypeError);
  });

  it('hashes the FIPS 180-2 "abc" vector identically', () => {
    const abc = new TextEncoder().encode('abc');
    const expected = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    expect(Buffer.from(nodeCrypto.sha256(abc)).toString('hex')).toBe(expected);
    expect(Buffer.from(nobleCrypto.sha256(abc)).toString('hex')).toBe(expected);
  });
});
