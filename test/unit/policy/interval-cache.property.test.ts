/**
 * The cache keys a Long attribute by its interval among the set's literals when the set only
 * compares it with them (long-intervals.ts). A key that merged two values the engine tells
 * apart would answer one of them wrongly, so every answer here is checked against the engine
 * on random sets and on requests placed on, just below and just above each literal.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authorize, authorizeUncached } from '../../../src/policy/authorization.js';
import type { PolicyRequest } from '../../../src/policy/authorization.js';
import { authorizationCacheStats } from '../../../src/policy/authorization-cache.js';
import { EXAMPLE_POLICY } from '../../../src/policy/example-policy.js';
import { compilePolicySet } from '../../../src/policy/policy-set.js';
import { request } from './fixtures.js';

const VERBS = ['read', 'refund'];
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const LONG_MAX = 2n ** 63n - 1n;
const LONG_MIN = -(2n ** 63n);

// Boundaries of the engine's Long and of the safe range, the example policy's limits, and
// small numbers, so that literals collide, sit next to each other and sit on either edge.
const SPECIAL = [
  0n,
  1n,
  -1n,
  3n,
  1_000_000_000n,
  1_700_000_000n,
  SAFE - 1n,
  SAFE,
  SAFE + 1n,
  SAFE + 2n,
  -SAFE,
  -SAFE - 1n,
  -SAFE - 2n,
  LONG_MAX,
  LONG_MIN,
];
const constant = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL) },
  { weight: 3, arbitrary: fc.bigInt({ min: -6n, max: 6n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: LONG_MIN, max: LONG_MAX }) },
);

const LONGS = ['context.amount_micros', 'context.tier', 'context.now_epoch_s', 'resource.tier'];
const OPS = ['<', '<=', '>', '>=', '==', '!='];

/** Conditions over the schema for a set whose Long literals are drawn from `cs`. */
function conditionOver(cs: readonly bigint[]): fc.Arbitrary<string> {
  const c = fc.constantFrom(...cs);
  const long = fc.constantFrom(...LONGS);
  const op = fc.constantFrom(...OPS);
  // Uses that key an attribute by its interval.
  const comparison = fc.oneof(
    fc.tuple(long, op, c).map(([a, o, k]) => `${a} ${o} ${k}`),
    fc.tuple(c, op, long).map(([k, o, a]) => `${k} ${o} ${a}`),
  );
  // Uses that keep it exact, some of which error (overflow) for some values.
  const other = fc.oneof(
    fc.tuple(long, c, op, c).map(([a, k, o, m]) => `${a} + ${k} ${o} ${m}`),
    fc.tuple(long, c, op, c).map(([a, k, o, m]) => `${a} * ${k} ${o} ${m}`),
    fc.tuple(long, op, c).map(([a, o, k]) => `-${a} ${o} ${k}`),
    fc.tuple(long, op, c).map(([a, o, k]) => `${a} ${o} -(${k})`),
    fc.tuple(long, op, long).map(([a, o, b]) => `${a} ${o} ${b}`),
    fc.tuple(c, c, long).map(([k, m, a]) => `[${k}, ${m}].contains(${a})`),
    fc.tuple(long, c, op, c).map(([a, k, o, m]) => `(if context.irreversible then ${a} else ${k}) ${o} ${m}`),
    fc.constant(
      'context == {task_id: "t1", tier: 1, amount_micros: 0, route: "action", now_epoch_s: 0, irreversible: false}',
    ),
  );
  // Attributes of other types, beside the Longs.
  const mixed = fc.oneof(
    fc.constantFrom('agent', 'human').map((k) => `principal.kind == "${k}"`),
    fc.constant('principal.roles.contains("operator")'),
    fc.constant('(principal has manager && principal.manager == "alice")'),
    fc.constant('context has amount_micros'),
    fc.constant('resource.irreversible'),
    fc.constantFrom('grant', 'brokered').map((v) => `resource.custody == "${v}"`),
    fc.constantFrom('action', 'brokered').map((r) => `context.route == "${r}"`),
    fc.constant('context.task_id like "t1*"'),
    fc.constant('principal == Actor::"a1"'),
  );
  const atom = fc.oneof(
    { weight: 6, arbitrary: comparison },
    { weight: 2, arbitrary: other },
    { weight: 2, arbitrary: mixed },
  );
  return fc.letrec<{ c: string }>((tie) => ({
    c: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      atom,
      tie('c').map((x) => `!(${x})`),
      fc.tuple(tie('c'), tie('c')).map(([a, b]) => `(${a} && ${b})`),
      fc.tuple(tie('c'), tie('c')).map(([a, b]) => `(${a} || ${b})`),
      fc.tuple(tie('c'), tie('c'), tie('c')).map(([a, b, x]) => `(if ${a} then ${b} else ${x})`),
    ),
  })).c;
}

function policySetOver(cs: readonly bigint[]): fc.Arbitrary<string> {
  const policy = fc
    .record({
      effect: fc.constantFrom('permit', 'forbid'),
      action: fc.constantFrom('action', 'action == Action::"read"'),
      conditions: fc.array(fc.tuple(fc.constantFrom('when', 'unless'), conditionOver(cs)), {
        minLength: 1,
        maxLength: 2,
      }),
    })
    .map(
      (p) =>
        `${p.effect} (principal, ${p.action}, resource)${p.conditions.map(([k, x]) => ` ${k} { ${x} }`).join('')};`,
    );
  return fc.array(policy, { minLength: 1, maxLength: 4 }).map((ps) => ps.join('\n'));
}

/** Values on, just below and just above each literal (and the ends), within `min`..`max`. */
function valuesNear(cs: readonly bigint[], min: bigint, max: bigint): bigint[] {
  const near = [min, max, 0n];
  for (const k of cs) for (let d = -2n; d <= 2n; d++) near.push(k + d);
  return [...new Set(near.map((v) => (v < min ? min : v > max ? max : v)))];
}

function requestsOver(cs: readonly bigint[]): fc.Arbitrary<PolicyRequest[]> {
  const number = fc.constantFrom(...valuesNear(cs, -SAFE, SAFE).map(Number));
  // Amounts beyond the safe range are refused before the engine, on both paths.
  const amount = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...valuesNear(cs, 0n, SAFE)) },
    { weight: 1, arbitrary: fc.constantFrom(SAFE + 1n, -1n) },
  );
  // A tier that is no integer is refused before the engine.
  const tier = fc.oneof({ weight: 15, arbitrary: number }, { weight: 1, arbitrary: fc.constant(2.5) });
  // A value of the wrong type (one at most, or the engine names either from run to run) must
  // be refused by the engine, never answered from a key.
  const custody = fc.oneof(
    { weight: 15, arbitrary: fc.constantFrom('grant', 'brokered') },
    { weight: 1, arbitrary: fc.constant(7 as unknown as string) },
  );
  const base: fc.Arbitrary<PolicyRequest> = fc.record({
    tenantId: fc.constant('acme'),
    actor: fc.record({
      id: fc.constantFrom('a1', 'a2'),
      kind: fc.constantFrom('agent' as const, 'human' as const),
      roles: fc.subarray(['operator']),
      manager: fc.constantFrom('alice', null),
    }),
    capability: fc.record({
      id: fc.constant('c1'),
      tier,
      irreversible: fc.boolean(),
      custody,
    }),
    action: fc.constantFrom('read', 'refund'),
    taskId: fc.constantFrom('t1', 't2'),
    amountMicros: amount,
    route: fc.constantFrom('action' as const, 'brokered' as const),
    nowEpochS: number,
  });
  // Requests that differ from a base in their Longs alone: an interval key that merged two
  // values the engine tells apart shows only on such a pair.
  const longs = fc.record({ amountMicros: amount, tier, nowEpochS: number });
  return fc
    .tuple(
      fc.array(base, { minLength: 1, maxLength: 2 }),
      fc.array(fc.tuple(fc.nat(), longs, fc.subarray(['amountMicros', 'tier', 'nowEpochS'] as const)), {
        minLength: 4,
        maxLength: 14,
      }),
    )
    .map(([bases, edits]) => [
      ...bases,
      ...edits.map(([k, values, fields]) => {
        const r = bases[k % bases.length]!;
        return {
          ...r,
          capability: { ...r.capability, tier: fields.includes('tier') ? values.tier : r.capability.tier },
          amountMicros: fields.includes('amountMicros') ? values.amountMicros : r.amountMicros,
          nowEpochS: fields.includes('nowEpochS') ? values.nowEpochS : r.nowEpochS,
        };
      }),
    ]);
}

const scenario = fc.uniqueArray(constant, { minLength: 1, maxLength: 4 }).chain((cs) =>
  fc.record({
    text: policySetOver(cs),
    pool: requestsOver(cs),
    picks: fc.array(fc.nat(), { minLength: 10, maxLength: 30 }),
  }),
);

describe('authorization cache keyed by interval: equivalence with the engine', () => {
  it('answers every request of every random set of comparisons exactly as the engine does', () => {
    const seen = { interval: 0, intervalHits: 0, allow: 0, forbid: 0, errors: 0, refused: 0 };
    fc.assert(
      fc.property(scenario, ({ text, pool, picks }) => {
        const compiled = compilePolicySet(text, VERBS);
        // The Longs of each request asked so far: a hit on a request whose Longs are new
        // came from an interval key.
        const asked = new Set<string>();
        for (const r of [...pool, ...picks.map((k) => pool[k % pool.length]!)]) {
          const before = authorizationCacheStats(compiled).hits;
          const uncached = authorizeUncached(compiled, r);
          expect(authorize(compiled, r), `${text}\n${JSON.stringify(r, bigints)}`).toEqual(uncached);
          const longs = JSON.stringify([r.amountMicros.toString(), r.capability.tier, r.nowEpochS]);
          if (authorizationCacheStats(compiled).hits > before && !asked.has(longs)) seen.intervalHits++;
          asked.add(longs);
          if (uncached.basis === 'permit') seen.allow++;
          if (uncached.basis === 'forbid') seen.forbid++;
          if (uncached.basis === 'evaluation_error') seen.errors++;
          if (uncached.basis === 'unrepresentable_request') seen.refused++;
        }
        if (authorizationCacheStats(compiled).intervals.length > 0) seen.interval++;
      }),
      { numRuns: 150 },
    );
    // The property would hold vacuously if no answer came from an interval key.
    expect(seen.interval).toBeGreaterThan(0);
    expect(seen.intervalHits).toBeGreaterThan(0);
    expect(seen.allow).toBeGreaterThan(0);
    expect(seen.forbid).toBeGreaterThan(0);
    expect(seen.errors).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });
});

describe('authorization cache keyed by interval: what hits', () => {
  it('answers a new amount or tier in the same interval from the cache, and a literal apart', () => {
    const compiled = compilePolicySet(EXAMPLE_POLICY, VERBS);
    const at = (amountMicros: bigint, tier = 1) =>
      authorize(compiled, request({ amountMicros, capability: { ...request().capability, tier } }));
    expect(authorizationCacheStats(compiled).intervals).toEqual(['context.amount_micros', 'context.tier']);
    expect(at(5_000_000n).decision).toBe('allow');
    expect(at(7_250_001n).decision).toBe('allow');
    expect(at(999_999_999n, 0).decision).toBe('allow');
    expect(authorizationCacheStats(compiled)).toMatchObject({ size: 1, hits: 2, misses: 1 });
    // The limit itself is a region of its own (`>` lets it through), and above it another.
    expect(at(1_000_000_000n).decision).toBe('allow');
    expect(at(1_000_000_001n).basis).toBe('forbid');
    expect(at(2_000_000_000_000n).basis).toBe('forbid');
    expect(authorizationCacheStats(compiled)).toMatchObject({ size: 3, hits: 3, misses: 3 });
    // Tier 3 is where agents stop being permitted.
    expect(at(5_000_000n, 3).basis).toBe('no_permit');
    expect(at(5_000_000n, 4).basis).toBe('no_permit');
    expect(authorizationCacheStats(compiled)).toMatchObject({ size: 5, hits: 3, misses: 5 });
  });

  it('keys by value an attribute that is also used in any other way', () => {
    const compiled = compilePolicySet(
      'permit (principal, action, resource) when { context.amount_micros < 100 && context.amount_micros + 1 > 2 };',
      VERBS,
    );
    authorize(compiled, request({ amountMicros: 5n }));
    authorize(compiled, request({ amountMicros: 6n }));
    expect(authorizationCacheStats(compiled)).toMatchObject({ intervals: [], size: 2, hits: 0 });
  });
});

function bigints(_: string, v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v;
}
