import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authorize, authorizeUncached } from '../../../src/policy/authorization.js';
import { AuthorizationCache, authorizationCacheStats } from '../../../src/policy/authorization-cache.js';
import { EXAMPLE_POLICY } from '../../../src/policy/example-policy.js';
import { analysePolicyReads } from '../../../src/policy/policy-reads.js';
import { compilePolicySet } from '../../../src/policy/policy-set.js';
import { request } from './fixtures.js';
import { policySet, requestPool, VERBS } from './policy-arbitraries.js';

describe('authorization cache: equivalence with uncached evaluation', () => {
  it('answers every request of every random policy set exactly as the engine does', () => {
    const seen = { cacheable: 0, uncacheable: 0, hits: 0, allow: 0, forbid: 0, errors: 0 };
    fc.assert(
      fc.property(
        policySet,
        requestPool,
        fc.array(fc.nat(), { minLength: 10, maxLength: 40 }),
        (text, pool, picks) => {
          const compiled = compilePolicySet(text, VERBS);
          for (const pick of picks) {
            const r = pool[pick % pool.length]!;
            const uncached = authorizeUncached(compiled, r);
            expect(authorize(compiled, r)).toEqual(uncached);
            if (uncached.basis === 'permit') seen.allow++;
            if (uncached.basis === 'forbid') seen.forbid++;
            if (uncached.basis === 'evaluation_error') seen.errors++;
          }
          const stats = authorizationCacheStats(compiled);
          seen[stats.cacheable ? 'cacheable' : 'uncacheable']++;
          seen.hits += stats.hits;
          // An uncacheable set never keeps an answer.
          if (!stats.cacheable) expect(stats.size).toBe(0);
        },
      ),
      { numRuns: 250 },
    );
    // The property would hold vacuously if no answer came from the cache.
    expect(seen.cacheable).toBeGreaterThan(0);
    expect(seen.uncacheable).toBeGreaterThan(0);
    expect(seen.hits).toBeGreaterThan(0);
    expect(seen.allow).toBeGreaterThan(0);
    expect(seen.forbid).toBeGreaterThan(0);
    expect(seen.errors).toBeGreaterThan(0);
  });
});

describe('authorization cache: what it keeps', () => {
  it('answers a repeated request from the cache and keys on what the set reads', () => {
    const compiled = compilePolicySet(EXAMPLE_POLICY, VERBS);
    const first = authorize(compiled, request());
    expect(first).toMatchObject({ decision: 'allow', determining: ['agents-below-tier-3'] });
    expect(authorize(compiled, request())).toEqual(first);
    // Neither the task nor the actor's id is read by the example policy: same key.
    expect(
      authorize(compiled, request({ taskId: 'other', actor: { ...request().actor, id: 'agent-2' } })),
    ).toEqual(first);
    expect(authorizationCacheStats(compiled)).toMatchObject({ cacheable: true, size: 1, hits: 2, misses: 1 });
    // The amount is read: a new amount is a new key, and here a different answer.
    expect(authorize(compiled, request({ amountMicros: 1_000_000_001n })).basis).toBe('forbid');
    expect(authorizationCacheStats(compiled)).toMatchObject({ size: 2, misses: 2 });
  });

  it('keeps no errored answer and no request of the wrong type', () => {
    const compiled = compilePolicySet(
      'permit (principal, action, resource);\nforbid (principal, action, resource) when { context.amount_micros * 1000000 > 5 };',
      VERBS,
    );
    for (let i = 0; i < 2; i++) {
      expect(authorize(compiled, request({ amountMicros: 10_000_000_000_000n })).basis).toBe(
        'evaluation_error',
      );
      const wrong = request({
        capability: { id: 'c', tier: 1, irreversible: 'no' as unknown as boolean, custody: 'x' },
      });
      expect(authorize(compiled, wrong).basis).toBe('evaluation_error');
    }
    expect(authorizationCacheStats(compiled)).toMatchObject({ size: 0, hits: 0 });
  });

  it('starts empty for every compilation, which the daemon makes per registry version', () => {
    const text = 'permit (principal, action, resource);';
    const before = compilePolicySet(text, VERBS);
    authorize(before, request());
    authorize(before, request());
    const after = compilePolicySet(text, VERBS);
    expect(authorizationCacheStats(before)).toMatchObject({ size: 1, hits: 1 });
    expect(authorizationCacheStats(after)).toMatchObject({ size: 0, hits: 0, misses: 0 });
  });

  it('says why a set it cannot analyse is not cached', () => {
    const compiled = compilePolicySet(
      'permit (principal, action, resource) when { Actor::"a1".kind == "agent" };',
      VERBS,
    );
    authorize(compiled, request({ actor: { ...request().actor, id: 'a1' } }));
    expect(authorizationCacheStats(compiled)).toMatchObject({ cacheable: false, size: 0 });
    expect(authorizationCacheStats(compiled).why).toContain('other than a request variable');
  });

  it('keys by value an attribute of another type than Long, even compared with a Long', () => {
    // The validator refuses such a comparison; the key must not rely on it.
    const cache = new AuthorizationCache(
      analysePolicyReads('permit (principal, action, resource) when { context.route == 3 };'),
    );
    const input = (route: string) => ({
      action: 'read',
      principalId: 'a1',
      resourceId: 'c1',
      principal: { kind: 'agent', roles: [] },
      resource: { tier: 1, irreversible: false, custody: 'grant' },
      context: { task_id: 't1', tier: 1, amount_micros: 0, route, now_epoch_s: 0, irreversible: false },
    });
    const [action, brokered] = [cache.keyOf(input('action')), cache.keyOf(input('brokered'))];
    expect(action).toBeDefined();
    expect(brokered).toBeDefined();
    expect(action).not.toBe(brokered);
    expect(cache.stats().intervals).toEqual([]);
  });

  it('holds at most its capacity, dropping the least recently used entry first', () => {
    const cache = new AuthorizationCache(analysePolicyReads('permit (principal, action, resource);'), 2);
    const allow = { decision: 'allow' as const, reason: ['policy0'] };
    cache.set('a', allow);
    cache.set('b', allow);
    expect(cache.get('a')).toEqual(allow); // a is now the most recent
    cache.set('c', allow);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual(allow);
    expect(cache.get('c')).toEqual(allow);
    expect(cache.stats()).toMatchObject({ size: 2, capacity: 2 });
    expect(
      () => new AuthorizationCache(analysePolicyReads('permit (principal, action, resource);'), 0),
    ).toThrow(RangeError);
  });
});
