import { describe, expect, it } from 'vitest';
import { authHeader, credentialProblem } from '../../../src/integration/auth-header.js';
import { effectIdOf, outcomeOfStatus, scrub } from '../../../src/connectors/outcome.js';

describe('auth header construction', () => {
  it('bearer, a named header, and basic from user:password', () => {
    expect(authHeader({ type: 'bearer' }, 't0k')).toEqual(['authorization', 'Bearer t0k']);
    expect(authHeader({ type: 'header', name: 'x-api-key' }, 't0k')).toEqual(['x-api-key', 't0k']);
    expect(authHeader({ type: 'basic' }, 'Aladdin:open sesame')).toEqual([
      'authorization',
      'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==',
    ]);
  });

  it('refuses credentials that could split a header, and basic without a colon', () => {
    expect(credentialProblem('a\r\nX-Evil: 1', { type: 'bearer' })).toMatch(/control characters/);
    expect(credentialProblem('', { type: 'bearer' })).toMatch(/empty/);
    expect(credentialProblem('user', { type: 'basic' })).toMatch(/user:password/);
    expect(credentialProblem('tok', { type: 'bearer' })).toBeUndefined();
  });
});

describe('provider outcomes', () => {
  it('2xx read whole succeeded; 4xx failed; 3xx, 5xx and an unread 2xx body unknown', () => {
    expect(outcomeOfStatus(201, true, 10).outcome).toBe('succeeded');
    expect(outcomeOfStatus(201, false, 10)).toMatchObject({
      outcome: 'unknown',
      error: 'response_too_large',
    });
    for (const s of [400, 404, 409, 422, 429])
      expect(outcomeOfStatus(s, true, 10).outcome, String(s)).toBe('failed');
    for (const s of [301, 303, 500, 502, 503, 504]) {
      const o = outcomeOfStatus(s, true, 10);
      expect(o.outcome, String(s)).toBe('unknown');
      expect(o.reason).toMatch(/may have happened/);
    }
  });

  it('takes the effect id by pointer, as text, only when it is a string or number', () => {
    expect(effectIdOf({ data: { id: 42 } }, '/data/id')).toBe('42');
    expect(effectIdOf({ id: 'c-1' }, '/id')).toBe('c-1');
    expect(effectIdOf({ id: { x: 1 } }, '/id')).toBeNull();
    expect(effectIdOf({ id: '' }, '/id')).toBeNull();
    expect(effectIdOf({ id: 'c-1' }, null)).toBeNull();
    expect(effectIdOf(undefined, '/id')).toBeNull();
  });

  it('scrubs secrets from keys and values at any depth', () => {
    expect(scrub({ a: ['x tok y', { tok: 1 }], n: 3 }, ['tok'])).toEqual({
      a: ['x [redacted] y', { '[redacted]': 1 }],
      n: 3,
    });
  });
});
