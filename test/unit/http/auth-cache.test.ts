import { describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import { AuthCache } from '../../../src/http/auth-cache.js';
import type { Caller } from '../../../src/http/caller.js';

const digest = (n: number) => new Uint8Array(32).fill(n);
const caller = (id: string): Caller => {
  const actor: Actor = {
    tenantId: 'acme',
    id,
    kind: 'agent',
    roles: [],
    managerId: 'alice',
    certSubject: null,
    displayName: null,
    createdAt: '2026-01-01T00:00:00.000Z',
  };
  return { tenantId: 'acme', actorId: id, actor, via: 'token', tokenId: `t-${id}` };
};

describe('AuthCache', () => {
  it('answers only the digest it verified', () => {
    const c = new AuthCache(10);
    const g = c.sync('1.0');
    c.put(g, 'a', digest(1), 1_000, caller('a'));
    expect(c.get('a', digest(1), 0)?.actorId).toBe('a');
    expect(c.get('a', digest(2), 0)).toBeUndefined();
    expect(c.get('b', digest(1), 0)).toBeUndefined();
  });

  it('honours expiry to the millisecond and forgets the expired entry', () => {
    const c = new AuthCache(10);
    c.put(c.sync('m'), 'a', digest(1), 1_000, caller('a'));
    expect(c.get('a', digest(1), 999)).toBeDefined();
    expect(c.get('a', digest(1), 1_000)).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('forgets everything when the change mark moves', () => {
    const c = new AuthCache(10);
    c.put(c.sync('1.0'), 'a', digest(1), 1_000, caller('a'));
    expect(c.sync('1.0')).toBe(c.sync('1.0'));
    expect(c.get('a', digest(1), 0)).toBeDefined();
    c.sync('2.0');
    expect(c.get('a', digest(1), 0)).toBeUndefined();
  });

  it('does not keep a lookup that started before the mark moved', () => {
    const c = new AuthCache(10);
    const before = c.sync('1.0');
    c.sync('1.1'); // another request saw a revocation meanwhile
    c.put(before, 'a', digest(1), 1_000, caller('a'));
    expect(c.size).toBe(0);
  });

  it('is bounded, and evicts the least recently used entry first', () => {
    const c = new AuthCache(2);
    const g = c.sync('m');
    c.put(g, 'a', digest(1), 1_000, caller('a'));
    c.put(g, 'b', digest(2), 1_000, caller('b'));
    expect(c.get('a', digest(1), 0)).toBeDefined(); // a is now the most recent
    c.put(g, 'c', digest(3), 1_000, caller('c'));
    expect(c.size).toBe(2);
    expect(c.get('b', digest(2), 0)).toBeUndefined();
    expect(c.get('a', digest(1), 0)).toBeDefined();
    expect(c.get('c', digest(3), 0)).toBeDefined();
    for (let i = 0; i < 100; i++) c.put(g, `x${i}`, digest(4), 1_000, caller(`x${i}`));
    expect(c.size).toBe(2);
  });

  it('holds nothing with a capacity of 0', () => {
    const c = new AuthCache(0);
    c.put(c.sync('m'), 'a', digest(1), 1_000, caller('a'));
    expect(c.size).toBe(0);
  });

  it('hands out a caller no request can change for the next', () => {
    const c = new AuthCache(10);
    c.put(c.sync('m'), 'a', digest(1), 1_000, caller('a'));
    const got = c.get('a', digest(1), 0)!;
    expect(() => got.actor.roles.push('operator')).toThrow(TypeError);
    expect(() => ((got as { tenantId: string }).tenantId = 'other')).toThrow(TypeError);
  });

  it('counts hits and misses (wrong digest, unknown id, expired) for the metrics', () => {
    const c = new AuthCache(10);
    expect(c.stats).toEqual({ hits: 0, misses: 0 });
    c.put(c.sync('m'), 'a', digest(1), 1_000, caller('a'));
    c.get('a', digest(1), 0);
    c.get('a', digest(1), 10);
    c.get('a', digest(2), 0);
    c.get('b', digest(1), 0);
    c.get('a', digest(1), 1_000);
    expect(c.stats).toEqual({ hits: 2, misses: 3 });
  });
});
