import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authorize, authorizeUncached } from '../../../src/policy/authorization.js';
import type { PolicyRequest } from '../../../src/policy/authorization.js';
import { AuthorizationCache, authorizationCacheStats } from '../../../src/policy/authorization-cache.js';
import { EXAMPLE_POLICY } from '../../../src/policy/example-policy.js';
import { analysePolicyReads } from '../../../src/policy/policy-reads.js';
import { compilePolicySet } from '../../../src/policy/policy-set.js';
import { request } from './fixtures.js';

const VERBS = ['read', 'refund', 'write'];

// Atoms over every attribute of the real schema, the entity ids and the action, including
// ones that error for some requests (overflow, a missing entity) and ones the analysis
// refuses (an attribute of an entity literal or of a computed entity).
const cmp = fc.constantFrom('<', '<=', '>', '>=', '==', '!=');
const atom: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('agent', 'human', 'service').map((k) => `principal.kind == "${k}"`),
  fc.constantFrom('operator', 'approver').map((r) => `principal.roles.contains("${r}")`),
  fc.constant('principal.roles.isEmpty()'),
  fc.constant('principal has manager'),
  fc.constantFrom('alice', 'bob').map((m) => `(principal has manager && principal.manager == "${m}")`),
  fc.constantFrom('a1', 'a2').map((id) => `principal == Actor::"${id}"`),
  fc.constant('principal in [Actor::"a1", Actor::"a3"]'),
  fc.constantFrom('c1', 'c2').map((id) => `resource == Capability::"${id}"`),
  fc.tuple(cmp, fc.integer({ min: 0, max: 4 })).map(([o, n]) => `resource.tier ${o} ${n}`),
  fc.constant('resource.irreversible'),
  fc.constantFrom('grant', 'brokered').map((c) => `resource.custody == "${c}"`),
  fc.tuple(cmp, fc.integer({ min: 0, max: 4 })).map(([o, n]) => `context.tier ${o} ${n}`),
  fc
    .tuple(cmp, fc.constantFrom(0, 1, 25_000_000, 100_000_000, 1_000_000_000))
    .map(([o, n]) => `context.amount_micros ${o} ${n}`),
  fc.constant('context.amount_micros * 1000000 > 5'),
  fc.tuple(cmp, fc.constantFrom(0, 1_700_000_000)).map(([o, n]) => `context.now_epoch_s ${o} ${n}`),
  fc.constant('context.now_epoch_s * 10000000000 > 0'),
  fc.constantFrom('action', 'brokered').map((r) => `context.route == "${r}"`),
  fc.constant('context.irreversible'),
  fc.constantFrom('t1', 't*').map((t) => `context.task_id like "${t}"`),
  fc.constantFrom('read', 'refund').map((v) => `action == Action::"${v}"`),
  fc.constant('decimal("1.5").lessThan(decimal("2.0"))'),
  fc.constant(
    'context == {task_id: "t1", tier: 1, amount_micros: 0, route: "action", now_epoch_s: 0, irreversible: false}',
  ),
  fc.constant('Actor::"a1".kind == "agent"'),
  fc.constant('(if context.tier > 1 then principal else principal).kind == "human"'),
);

const condition: fc.Arbitrary<string> = fc.letrec<{ c: string }>((tie) => ({
  c: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    tie('c').map((c) => `!(${c})`),
    fc.tuple(tie('c'), tie('c')).map(([a, b]) => `(${a} && ${b})`),
    fc.tuple(tie('c'), tie('c')).map(([a, b]) => `(${a} || ${b})`),
    fc.tuple(tie('c'), tie('c'), tie('c')).map(([a, b, c]) => `(if ${a} then ${b} else ${c})`),
  ),
})).c;

const policy = fc
  .record({
    id: fc.option(fc.constantFrom('limit', 'ops', 'agents'), { nil: undefined }),
    reason: fc.option(fc.constant('a reason'), { nil: undefined }),
    effect: fc.constantFrom('permit', 'forbid'),
    principal: fc.constantFrom(
      'principal',
      'principal == Actor::"a1"',
      'principal in Actor::"a2"',
      'principal is Actor',
    ),
    action: fc.constantFrom(
      'action',
      'action == Action::"read"',
      'action in [Action::"read", Action::"refund"]',
    ),
    resource: fc.constantFrom('resource', 'resource == Capability::"c1"', 'resource is Capability'),
    conditions: fc.array(fc.tuple(fc.constantFrom('when', 'unless'), condition), { maxLength: 2 }),
  })
  .map((p) => {
    const annotations = `${p.id === undefined ? '' : `@id("${p.id}") `}${p.reason === undefined ? '' : `@reason("${p.reason}") `}`;
    const body = p.conditions.map(([kind, c]) => ` ${kind} { ${c} }`).join('');
    return `${annotations}${p.effect} (${p.principal}, ${p.action}, ${p.resource})${body};`;
  });

const policySet = fc.array(policy, { minLength: 1, maxLength: 5 }).map((ps) => ps.join('\n'));

// Small domains, so that requests repeat and agree on what a policy reads. At most one
// value of the wrong type, which the cache must leave to the engine: with two, the engine
// itself names either one from run to run (its schema check walks a hash map).
const faults: Partial<PolicyRequest['capability']>[] = [
  { tier: 2.5 },
  { irreversible: 0 as unknown as boolean },
  { custody: 7 as unknown as string },
];
const policyRequest: fc.Arbitrary<PolicyRequest> = fc
  .record({
    tenantId: fc.constantFrom('acme', 'globex'),
    actor: fc.record({
      id: fc.constantFrom('a1', 'a2', 'a3'),
      kind: fc.constantFrom('agent', 'human', 'service'),
      roles: fc.subarray(['operator', 'approver']),
      manager: fc.constantFrom('alice', 'bob', null, undefined),
    }),
    capability: fc.record({
      id: fc.constantFrom('c1', 'c2'),
      tier: fc.integer({ min: 0, max: 4 }),
      irreversible: fc.boolean(),
      custody: fc.constantFrom('grant', 'brokered'),
    }),
    fault: fc.option(fc.constantFrom(...faults), { nil: undefined, freq: 8 }),
    action: fc.constantFrom('read', 'refund', 'write', 'launch'),
    taskId: fc.constantFrom('t1', 't2'),
    amountMicros: fc.constantFrom(0n, 1n, 25_000_000n, 1_000_000_001n, 10_000_000_000_000n, 2n ** 53n),
    route: fc.constantFrom('action' as const, 'brokered' as const),
    nowEpochS: fc.constantFrom(0, 1_700_000_000),
  })
  .map(({ fault, ...r }) => ({ ...r, capability: { ...r.capability, ...fault } }));

// A key that leaves out something a policy reads shows only on two requests that differ in
// that one thing, so the pool holds a few requests and variants of them in one field each.
const FIELDS = [
  'actor.id',
  'actor.kind',
  'actor.roles',
  'actor.manager',
  'capability.id',
  'capability.tier',
  'capability.irreversible',
  'capability.custody',
  'action',
  'taskId',
  'amountMicros',
  'route',
  'nowEpochS',
  'tenantId',
] as const;

function variant(base: PolicyRequest, donor: PolicyRequest, path: (typeof FIELDS)[number]): PolicyRequest {
  const [head, tail] = path.split('.') as [keyof PolicyRequest, string | undefined];
  if (tail === undefined) return { ...base, [head]: donor[head] };
  const part = head as 'actor' | 'capability';
  return { ...base, [part]: { ...base[part], [tail]: (donor[part] as Record<string, unknown>)[tail] } };
}

const requestPool: fc.Arbitrary<PolicyRequest[]> = fc
  .tuple(
    fc.array(policyRequest, { minLength: 1, maxLength: 3 }),
    fc.array(fc.tuple(fc.nat(), policyRequest, fc.constantFrom(...FIELDS)), { maxLength: 10 }),
  )
  .map(([bases, edits]) => [
    ...bases,
    ...edits
      .map(([k, donor, path]) => variant(bases[k % bases.length]!, donor, path))
      .filter((r) => faultsOf(r) <= 1),
  ]);

function faultsOf({ capability: c }: PolicyRequest): number {
  return (
    Number(!Number.isInteger(c.tier)) +
    Number(typeof c.irreversible !== 'boolean') +
    Number(typeof c.custody !== 'string')
  );
}

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
