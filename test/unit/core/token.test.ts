import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  hashTokenSecret,
  newToken,
  parseToken,
  tokenSecretMatches,
  tokenState,
} from '../../../src/core/token.js';

describe('bearer tokens', () => {
  it('carry a public id and a 256-bit secret, and store only a hash', () => {
    const t = newToken();
    expect(t.token).toMatch(/^svct_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(t.secret, 'base64url')).toHaveLength(32);
    expect(t.secretHash).toHaveLength(32);
    expect(Buffer.from(t.secretHash).toString('hex')).not.toContain(Buffer.from(t.secret).toString('hex'));
    expect(parseToken(t.token)).toEqual({ id: t.id, secret: t.secret });
  });

  it('are distinct every time', () => {
    const seen = new Set(Array.from({ length: 200 }, () => newToken().token));
    expect(seen.size).toBe(200);
  });

  it('verify only with the exact secret and id', () => {
    const t = newToken();
    expect(tokenSecretMatches({ id: t.id, secret: t.secret }, t.secretHash)).toBe(true);
    const flipped = (t.secret[0] === 'A' ? 'B' : 'A') + t.secret.slice(1);
    expect(tokenSecretMatches({ id: t.id, secret: flipped }, t.secretHash)).toBe(false);
    // the hash is bound to the id: the same secret under another id does not verify
    expect(tokenSecretMatches({ id: '0123456789abcdef', secret: t.secret }, t.secretHash)).toBe(false);
    expect(tokenSecretMatches({ id: t.id, secret: t.secret }, new Uint8Array(31))).toBe(false);
  });

  it('parse never throws on attacker input', () => {
    for (const bad of [
      '',
      'svct_',
      'Bearer x',
      'svct_0123456789abcdeg_' + 'a'.repeat(43),
      'svct_0123456789abcdef_' + 'a'.repeat(42),
      'x'.repeat(10_000),
    ]) {
      expect(parseToken(bad)).toBeUndefined();
    }
  });

  it('hash is domain-separated and deterministic', () => {
    expect(hashTokenSecret('a', 'b')).toEqual(hashTokenSecret('a', 'b'));
    // The stored hashes of every issued token depend on these exact bytes.
    expect(Buffer.from(hashTokenSecret('0123456789abcdef', 'c2VjcmV0')).toString('hex')).toBe(
      createHash('sha256').update('svc/token/1\u00000123456789abcdef\u0000c2VjcmV0').digest('hex'),
    );
    expect(hashTokenSecret('a', 'b').byteLength).toBe(32);
    expect(hashTokenSecret('a', 'b')).not.toEqual(hashTokenSecret('a\0b', ''));
  });

  it('states: active, expired at the instant of expiry, revoked wins', () => {
    const now = new Date('2026-01-01T00:00:00.000Z');
    expect(tokenState({ expiresAt: '2026-01-01T00:00:00.001Z', revokedAt: null }, now)).toBe('active');
    expect(tokenState({ expiresAt: '2026-01-01T00:00:00.000Z', revokedAt: null }, now)).toBe('expired');
    expect(
      tokenState({ expiresAt: '2027-01-01T00:00:00.000Z', revokedAt: '2025-12-31T00:00:00.000Z' }, now),
    ).toBe('revoked');
  });
});
