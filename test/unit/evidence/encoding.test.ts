import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeBase64,
  decodeHex,
  encodeBase64,
  encodeHex,
  encodeUtf8,
  isWellFormedUnicode,
  scanWellFormed,
} from '../../../src/evidence/encoding.js';

describe('hex', () => {
  it('round-trips any bytes and agrees with Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const hex = encodeHex(bytes);
        expect(hex).toBe(Buffer.from(bytes).toString('hex'));
        expect(decodeHex(hex)).toEqual(bytes);
      }),
    );
  });

  it('accepts only lowercase, even-length hex', () => {
    expect(decodeHex('00ff7a')).toEqual(Uint8Array.of(0, 255, 0x7a));
    expect(decodeHex('')).toEqual(new Uint8Array(0));
    for (const text of ['00FF', 'abc', 'zz', ' 00', '00\n', '0x00', '+1'])
      expect(decodeHex(text)).toBeUndefined();
  });
});

describe('base64 (RFC 4648, strict)', () => {
  it('round-trips any bytes and agrees with Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const text = encodeBase64(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64'));
        expect(decodeBase64(text)).toEqual(bytes);
      }),
    );
  });

  it('refuses what Node decodes leniently', () => {
    const refused = [
      'QR==', // non-zero padding bits: Node reads it as "A"
      'QUJ=', // ditto, one pad
      'QQ', // padding missing
      'QQ=', // short
      'QQ==\n', // trailing junk
      'Q Q==',
      'QQ==QQ==', // padding inside
      '====',
      'Q===',
      '-_8=', // base64url alphabet
    ];
    for (const text of refused) {
      expect(decodeBase64(text), text).toBeUndefined();
    }
    expect(Buffer.from('QR==', 'base64').toString()).toBe('A'); // why strictness matters
  });

  it('decodes the empty string and the canonical paddings', () => {
    expect(decodeBase64('')).toEqual(new Uint8Array(0));
    expect(decodeBase64('QQ==')).toEqual(Uint8Array.of(0x41));
    expect(decodeBase64('QUI=')).toEqual(Uint8Array.of(0x41, 0x42));
    expect(decodeBase64('QUJD')).toEqual(Uint8Array.of(0x41, 0x42, 0x43));
  });
});

describe('UTF-8', () => {
  it('encodes well-formed strings like TextEncoder', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(encodeUtf8(text)).toEqual(new TextEncoder().encode(text));
      }),
    );
  });

  it('tells lone surrogates the same way natively and by its own scan (older browsers)', () => {
    const surrogates = fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u));
    const text = fc
      .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 4 }), surrogates), { maxLength: 12 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (t) => {
        expect(scanWellFormed(t)).toBe(t.isWellFormed());
        expect(isWellFormedUnicode(t)).toBe(t.isWellFormed());
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses lone surrogates instead of replacing them', () => {
    expect(isWellFormedUnicode('a\ud83d\ude00b')).toBe(true);
    for (const text of ['\ud800', 'a\udc00', '\ude00\ud83d', 'x\ud83d']) {
      expect(isWellFormedUnicode(text)).toBe(false);
      expect(() => encodeUtf8(text)).toThrow(TypeError);
    }
  });
});
