import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { longLiteral, regionOf, sortedConstants } from '../../../src/policy/long-intervals.js';

const MAX = Number.MAX_SAFE_INTEGER;

describe('regionOf: the interval of a value among sorted constants', () => {
  const constants = sortedConstants([10n, -5n, 10n, 3n]);

  it('sorts and de-duplicates the constants', () => {
    expect(constants).toEqual([-5n, 3n, 10n]);
  });

  it('gives each constant a region of its own, between the open ones around it', () => {
    expect([-MAX, -6, -5, -4, 0, 2, 3, 4, 9, 10, 11, MAX].map((v) => regionOf(v, constants))).toEqual([
      0, 0, 1, 2, 2, 2, 3, 4, 4, 5, 6, 6,
    ]);
    expect(regionOf(7, [])).toBe(0);
  });

  it('refuses anything but a safe integer, which must not be keyed', () => {
    for (const v of [MAX + 1, -MAX - 1, 1.5, NaN, Infinity, '3', 3n, null]) {
      expect(regionOf(v, constants)).toBeUndefined();
    }
  });

  it('puts two values in one region exactly when every comparison with every constant agrees', () => {
    const value = fc.oneof(fc.integer({ min: -20, max: 20 }), fc.constantFrom(MAX, -MAX, MAX - 1, -MAX + 1));
    const constant = fc.oneof(
      fc.bigInt({ min: -20n, max: 20n }),
      fc.constantFrom(2n ** 53n, -(2n ** 53n), BigInt(MAX), BigInt(-MAX), BigInt(MAX - 1)),
    );
    fc.assert(
      fc.property(fc.array(constant, { maxLength: 6 }), value, value, (cs, a, b) => {
        const sorted = sortedConstants(cs);
        const agree = sorted.every((c) => {
          const [x, y] = [BigInt(a), BigInt(b)];
          return x < c === y < c && (x === c) === (y === c) && x > c === y > c;
        });
        expect(regionOf(a, sorted) === regionOf(b, sorted)).toBe(agree);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('longLiteral: a Long literal of the engine JSON, exactly', () => {
  it('takes safe integers as they are and nothing but integers', () => {
    expect(longLiteral(0)).toBe(0n);
    expect(longLiteral(-7)).toBe(-7n);
    expect(longLiteral(MAX)).toBe(BigInt(MAX));
    expect(longLiteral(-MAX)).toBe(BigInt(-MAX));
    for (const v of [1.5, '3', true, null, { __entity: { type: 'A', id: 'x' } }, NaN, undefined]) {
      expect(longLiteral(v)).toBeUndefined();
    }
  });

  it('maps a rounded literal beyond the safe range to +/-2^53, beyond every keyed value', () => {
    // 2^53 + 1 and 2^63 - 1 arrive rounded; only their side of the safe range is certain.
    expect(longLiteral(Number('9007199254740993'))).toBe(2n ** 53n);
    expect(longLiteral(2 ** 53)).toBe(2n ** 53n);
    expect(longLiteral(Number('9223372036854775807'))).toBe(2n ** 53n);
    expect(longLiteral(Number('-9223372036854775808'))).toBe(-(2n ** 53n));
  });
});
