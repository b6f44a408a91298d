import { createHash, generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chainGenesis, chainNext } from '../../../src/evidence/chain.js';
import { sha256OfText, type Sha256 } from '../../../src/evidence/crypto-provider.js';
import { isWellFormedUnicode } from '../../../src/evidence/encoding.js';
import { entryLeaf, entryPreimage } from '../../../src/evidence/entry.js';
import type { EntryLine, Tombstone } from '../../../src/evidence/export-line.js';
import { keyIdOf } from '../../../src/evidence/key-id.js';
import { keyIdFor, rawPublicKey } from '../../../src/evidence/keys.js';
import { LOG_ID_PREFIX, logIdFor } from '../../../src/evidence/log-id.js';
import { nobleCrypto } from '../../../src/evidence/noble-crypto.js';
import { ed25519Signer, nodeCrypto, sha256 } from '../../../src/evidence/node-crypto.js';
import { redactEntry } from '../../../src/evidence/tombstone.js';
import {
  headPayload,
  signTreeHead,
  unsignedTreeHead,
  verifyTreeHead,
} from '../../../src/evidence/tree-head.js';

// Reference computations written out with node:crypto, apart from the code under test.
const H = (...parts: (Buffer | Uint8Array | string)[]): Buffer => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

const entry: EntryLine = {
  type: 'entry',
  tenant_id: 'acme',
  sequence: 1,
  record_hash: 'ab'.repeat(32),
  intent_id: 'int_1',
  actor_id: 'agent:a',
  capability: 'crm.read',
  tier: 1,
  allowed: true,
  grant_id: 'gr_1',
  amount_usd: 0.5,
  occurred_at: '2025-01-01T00:00:00.000Z',
  linked_at: '2025-01-01T00:00:00.001Z',
  chain_hash: 'cd'.repeat(32),
  leaf: 'ef'.repeat(32),
};

describe('log id (§2)', () => {
  it('is the prefix plus hex(H("svc/log-id/1" || 0x00 || tenant))', () => {
    const expected = LOG_ID_PREFIX + H('svc/log-id/1', Buffer.of(0), 'acme-demo').toString('hex');
    expect(logIdFor('acme-demo', sha256)).toBe(expected);
    expect(logIdFor('acme-demo', nobleCrypto.sha256)).toBe(expected);
    expect(logIdFor('ácme', sha256)).toBe(
      LOG_ID_PREFIX + H('svc/log-id/1', Buffer.of(0), Buffer.from('ácme', 'utf8')).toString('hex'),
    );
  });

  it('refuses an empty tenant and a lone surrogate', () => {
    expect(() => logIdFor('', sha256)).toThrow(RangeError);
    expect(() => logIdFor('a\ud800', sha256)).toThrow(TypeError);
  });
});

describe('key id (§1)', () => {
  it('matches keys.ts keyIdFor for fresh keys', () => {
    for (let i = 0; i < 10; i++) {
      const raw = rawPublicKey(generateKeyPairSync('ed25519').publicKey);
      expect(keyIdOf(raw, nobleCrypto.sha256)).toBe(keyIdFor(raw));
      expect(keyIdOf(raw, sha256)).toMatch(/^ed25519-[0-9a-f]{16}$/);
    }
    expect(() => keyIdOf(new Uint8Array(31), sha256)).toThrow(RangeError);
  });
});

describe('entry preimage and leaf (§3)', () => {
  it('is CJSON of the entry without type, chain_hash and leaf', () => {
    const preimage = entryPreimage(entry);
    expect(preimage).toBe(
      '{"actor_id":"agent:a","allowed":true,"amount_usd":0.5,"capability":"crm.read","grant_id":"gr_1","intent_id":"int_1",' +
        '"linked_at":"2025-01-01T00:00:00.001Z","occurred_at":"2025-01-01T00:00:00.000Z","record_hash":"' +
        'ab'.repeat(32) +
        '","sequence":1,"tenant_id":"acme","tier":1}',
    );
    expect(Buffer.from(entryLeaf(entry, sha256)).toString('hex')).toBe(H(preimage).toString('hex'));
  });

  it('keeps a tombstone and any unknown field, so either changes the leaf', () => {
    const tombstone: Tombstone = {
      from_sequence: 1,
      to_sequence: 1,
      reason: 'r',
      authorised_by: 'u',
      removed_at: '2025-01-02T00:00:00.000Z',
    };
    expect(entryPreimage({ ...entry, tombstone })).toContain('"tombstone":{"authorised_by":"u"');
    expect(entryPreimage({ ...entry, extra: 1 })).toContain('"extra":1');
    expect(entryLeaf({ ...entry, extra: 1 }, sha256)).not.toEqual(entryLeaf(entry, sha256));
  });

  it('treats a "__proto__" key as data', () => {
    const parsed = JSON.parse('{"__proto__":{"x":1},"type":"entry","a":1}') as object;
    expect(entryPreimage(parsed)).toBe('{"__proto__":{"x":1},"a":1}');
  });
});

describe('chain (§4)', () => {
  it('starts at H("svc/chain/1" || 0x00 || log_id) and steps with H(0x01 || c || leaf)', () => {
    const logId = logIdFor('acme', sha256);
    const genesis = chainGenesis(logId, sha256);
    expect(Buffer.from(genesis).toString('hex')).toBe(H('svc/chain/1', Buffer.of(0), logId).toString('hex'));
    const leaf = sha256(Uint8Array.of(7));
    expect(Buffer.from(chainNext(genesis, leaf, sha256)).toString('hex')).toBe(
      H(Buffer.of(1), genesis, leaf).toString('hex'),
    );
    expect(() => chainNext(genesis, leaf.subarray(1), sha256)).toThrow(RangeError);
  });
});

describe('tree heads (§6)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = rawPublicKey(publicKey);
  const head = signTreeHead(
    unsignedTreeHead(logIdFor('acme', sha256), 5, sha256(Uint8Array.of(1)), '2025-01-01T00:00:00.000Z'),
    ed25519Signer(privateKey),
  );

  it('signs CJSON of the head without its signature, index equal to tree_size', () => {
    expect(head.index).toBe(5);
    expect(headPayload(head)).toBe(
      `{"index":5,"log_id":"${head.log_id}","root_hash":"${head.root_hash}","signed_at":"2025-01-01T00:00:00.000Z","tree_size":5}`,
    );
    expect(headPayload(head)).toBe(headPayload({ ...head, signature: 'other' }));
    expect(verifyTreeHead(head, raw, nodeCrypto)).toBe(true);
    expect(verifyTreeHead(head, raw, nobleCrypto)).toBe(true);
  });

  it('fails a changed field, another key, bad base64 and a 63-byte signature', () => {
    const other = rawPublicKey(generateKeyPairSync('ed25519').publicKey);
    const short = Buffer.from(head.signature, 'base64').subarray(0, 63).toString('base64');
    expect(verifyTreeHead({ ...head, tree_size: 6 }, raw, nodeCrypto)).toBe(false);
    expect(verifyTreeHead(head, other, nodeCrypto)).toBe(false);
    expect(verifyTreeHead({ ...head, signature: `${head.signature.slice(0, -3)}x==` }, raw, nodeCrypto)).toBe(
      false,
    );
    expect(verifyTreeHead({ ...head, signature: short }, raw, nodeCrypto)).toBe(false);
  });

  it('refuses impossible heads', () => {
    expect(() => unsignedTreeHead('x', -1, new Uint8Array(32), 't')).toThrow(RangeError);
    expect(() => unsignedTreeHead('x', 1, new Uint8Array(31), 't')).toThrow(RangeError);
  });
});

describe('redactEntry (§7)', () => {
  const tombstone: Tombstone = {
    from_sequence: 1,
    to_sequence: 2,
    reason: 'retention',
    authorised_by: 'user:dpo',
    removed_at: '2025-02-01T00:00:00.000Z',
  };

  it('empties content, zeroes the record hash, takes both times from the tombstone, keeps identity and chain', () => {
    expect(redactEntry(entry, tombstone)).toEqual({
      ...entry,
      record_hash: '0'.repeat(64),
      occurred_at: tombstone.removed_at,
      linked_at: tombstone.removed_at,
      intent_id: '',
      actor_id: '',
      capability: '',
      tier: 0,
      allowed: false,
      grant_id: '',
      amount_usd: 0,
      tombstone,
    });
  });

  it('refuses an entry outside the range', () => {
    expect(() => redactEntry({ ...entry, sequence: 3 }, tombstone)).toThrow(RangeError);
  });
});

describe('H(UTF8(text)) (§1)', () => {
  it('is the same with the native text hash and with the bytes encoded first, and refuses a lone surrogate either way', () => {
    const encodedFirst: Sha256 = (data) => nobleCrypto.sha256(data);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        const wellFormed = isWellFormedUnicode(text);
        for (const provider of [sha256, encodedFirst]) {
          if (wellFormed) {
            expect(Buffer.from(sha256OfText(provider, text))).toEqual(H(Buffer.from(text, 'utf8')));
          } else {
            expect(() => sha256OfText(provider, text)).toThrow(/lone surrogate/);
          }
        }
      }),
      { numRuns: 300 },
    );
    expect(sha256.text).toBeTypeOf('function');
    expect(() => sha256OfText(sha256, 'a\uD800b')).toThrow(/lone surrogate/);
  });
});
