import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SvcError } from '../../../src/core/errors.js';
import {
  MAX_MICROS,
  fits,
  formatUsd,
  microsToDecimal,
  parseUsd,
  parseUsdText,
  remaining,
  shortfall,
  sumMicros,
} from '../../../src/core/money.js';
import type { BudgetState } from '../../../src/core/money.js';
import { codedError } from '../../helpers/coded-error.js';

const anyMicros = fc.bigInt({ min: 0n, max: MAX_MICROS });
// Micros with at most 15 significant digits: every such USD value is exactly a JSON number.
const apiExactMicros = fc.bigInt({ min: 0n, max: 10n ** 15n - 1n });

const refusal = (fn: () => unknown) => codedError(fn, 'expected a refusal, got a value');

describe('parseUsd (API JSON numbers)', () => {
  it.each([
    [0, 0n],
    [12.5, 12_500_000n],
    [0.000001, 1n],
    [1e-6, 1n],
    [1.5e-5, 15n],
    [0.1, 100_000n],
    [123456.789012, 123_456_789_012n],
    [1e12, 10n ** 18n],
    [999999999999.9999, 999_999_999_999_999_900n],
    [-0, 0n],
    [JSON.parse('12.3400000') as number, 12_340_000n],
  ])('reads %s as %s micros', (value, micros) => {
    expect(parseUsd(value, 'amount_usd')).toBe(micros);
  });

  it.each([
    ['negative', -1],
    ['negative micro', -0.000001],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['seven decimals', 0.1234567],
    ['exponent below a micro', 1e-7],
    ['far below a micro', 5e-324],
    ['above 1e12', 1e12 + 0.0001],
    ['exponent form above range', 1e21],
    ['largest double', Number.MAX_VALUE],
    ['string', '12.5'],
    ['null', null],
    ['undefined', undefined],
    ['boolean', true],
    ['bigint', 5n],
    ['object', { usd: 1 }],
    ['array', [1]],
  ])('refuses %s with a coded error naming the field', (_label, value) => {
    const err = refusal(() => parseUsd(value, 'amount_usd'));
    expect(err.code).toBe('invalid_request');
    expect(err.field).toBe('amount_usd');
    expect(err.reason).toMatch(/^amount_usd: expected USD as a number from 0 to 1000000000000/);
  });

  it('says what was wrong', () => {
    expect(refusal(() => parseUsd(-3, 'f')).reason).toContain('negative');
    expect(refusal(() => parseUsd(0.1234567, 'f')).reason).toContain('more than 6 decimal places');
    expect(refusal(() => parseUsd(2e12, 'f')).reason).toContain('larger amount');
    expect(refusal(() => parseUsd('1', 'f')).reason).toContain('got a string');
  });
});

describe('parseUsdText (CLI strings)', () => {
  it.each([
    ['12.50', 12_500_000n],
    ['12', 12_000_000n],
    ['0.000001', 1n],
    ['1.0000000', 1_000_000n],
    ['0012.5', 12_500_000n],
    ['1e3', 1_000_000_000n],
    ['1.5E-5', 15n],
    ['-0', 0n],
    ['0e999999999999', 0n],
    ['1000000000000', 10n ** 18n],
    ['999999999999.999999', 10n ** 18n - 1n],
  ])('reads %s', (text, micros) => {
    expect(parseUsdText(text, 'budget')).toBe(micros);
  });

  it.each([
    '12.',
    '.5',
    '1,000',
    ' 1',
    '1 ',
    '+1',
    '-1',
    '--1',
    'abc',
    '',
    '0x10',
    '1e',
    '0.0000001',
    '1000000000000.000001',
    '1e13',
    '1e999999999999',
    '1e-999999999999',
    '1'.repeat(65),
  ])('refuses %j', (text) => {
    const err = refusal(() => parseUsdText(text, 'budget'));
    expect(err.field).toBe('budget');
    expect(err.code).toBe('invalid_request');
  });
});

describe('formatting', () => {
  it.each([
    [0n, '0', 0],
    [1n, '0.000001', 0.000001],
    [12_500_000n, '12.5', 12.5],
    [10n ** 18n, '1000000000000', 1e12],
    [-1_500_000n, '-1.5', -1.5],
  ])('%s micros is %s USD', (micros, text, value) => {
    expect(microsToDecimal(micros)).toBe(text);
    expect(formatUsd(micros)).toBe(value);
  });

  it('decimal text round-trips every micro in range', () => {
    fc.assert(
      fc.property(anyMicros, (m) => {
        expect(parseUsdText(microsToDecimal(m), 'x')).toBe(m);
      }),
    );
  });

  it('parse(format(m)) is m for every amount a JSON number can carry exactly', () => {
    fc.assert(
      fc.property(apiExactMicros, (m) => {
        expect(parseUsd(formatUsd(m), 'x')).toBe(m);
      }),
    );
  });

  it('format(m) over the whole range is accepted, stable, and within one double step of m', () => {
    fc.assert(
      fc.property(anyMicros, (m) => {
        const value = formatUsd(m);
        const back = parseUsd(value, 'x');
        expect(formatUsd(back)).toBe(value);
        const diff = back > m ? back - m : m - back;
        // A double has 53 bits: its step near m micros is at most m / 2^52.
        expect(diff <= m >> 51n).toBe(true);
      }),
    );
  });

  it('formatUsd is the double nearest to the exact decimal text, over the whole range and both signs', () => {
    const edge = BigInt(Number.MAX_SAFE_INTEGER);
    const micros = fc.oneof(
      fc.bigInt({ min: -MAX_MICROS, max: MAX_MICROS }),
      fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n }),
      fc.bigInt({ min: edge - 1000n, max: edge + 1000n }),
      fc.bigInt({ min: -edge - 1000n, max: -edge + 1000n }),
    );
    fc.assert(
      fc.property(micros, (m) => {
        expect(Object.is(formatUsd(m), Number(microsToDecimal(m)))).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });

  it('every accepted double formats back to the same double', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e12, noNaN: true }), (x) => {
        let micros: bigint;
        try {
          micros = parseUsd(x, 'x');
        } catch {
          return;
        }
        expect(Object.is(formatUsd(micros), x === 0 ? 0 : x)).toBe(true);
      }),
    );
  });
});

describe('more than 6 decimals is never accepted', () => {
  // k / 10^places with k not a multiple of 10: exactly `places` decimals, places >= 7.
  const finerThanMicro = fc
    .record({ k: fc.bigInt({ min: 1n, max: 10n ** 14n }), places: fc.integer({ min: 7, max: 12 }) })
    .filter(({ k }) => k % 10n !== 0n);

  function text(k: bigint, places: number): string {
    const digits = k.toString().padStart(places + 1, '0');
    return `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  }

  it('as CLI text', () => {
    fc.assert(
      fc.property(finerThanMicro, ({ k, places }) => {
        expect(() => parseUsdText(text(k, places), 'x')).toThrow(SvcError);
      }),
    );
  });

  it('as a JSON number, including exponent forms such as 1e-7', () => {
    fc.assert(
      fc.property(finerThanMicro, ({ k, places }) => {
        // k has at most 15 significant digits, so the double's shortest text is this same
        // decimal (DBL_DIG): the value genuinely has `places` decimals.
        const value = Number(text(k, places));
        expect(() => parseUsd(value, 'x')).toThrow(SvcError);
      }),
    );
  });
});

describe('sums and budgets', () => {
  it('0.1 + 0.2 is 0.3 in micros, unlike in doubles', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(parseUsd(0.1, 'a') + parseUsd(0.2, 'a')).toBe(parseUsd(0.3, 'a'));
  });

  it('summing API amounts never loses a micro', () => {
    fc.assert(
      fc.property(fc.array(apiExactMicros, { maxLength: 200 }), (parts) => {
        const total = sumMicros(parts.map((m) => parseUsd(formatUsd(m), 'amount_usd')));
        expect(total).toBe(parts.reduce((a, b) => a + b, 0n));
        // Reserving every part one by one exhausts a budget of exactly the total.
        let budget: BudgetState = { limit: total, reserved: 0n };
        for (const part of parts) {
          expect(fits(budget, part)).toBe(true);
          budget = { ...budget, reserved: budget.reserved + part };
        }
        expect(remaining(budget)).toBe(0n);
        expect(fits(budget, 1n)).toBe(false);
        expect(shortfall(budget, 1n)).toBe(1n);
      }),
    );
  });

  const budgetCase = fc.record({ limit: anyMicros, reserved: anyMicros, amount: anyMicros });

  it('shortfall is exactly the smallest raise that makes the amount fit', () => {
    fc.assert(
      fc.property(budgetCase, ({ limit, reserved, amount }) => {
        const b = { limit, reserved };
        const gap = shortfall(b, amount);
        expect(gap >= 0n).toBe(true);
        expect(gap === 0n).toBe(fits(b, amount));
        expect(fits({ limit: limit + gap, reserved }, amount)).toBe(true);
        if (gap > 0n) expect(fits({ limit: limit + gap - 1n, reserved }, amount)).toBe(false);
      }),
    );
  });

  it('remaining is what can still be reserved, never negative', () => {
    fc.assert(
      fc.property(budgetCase, ({ limit, reserved, amount }) => {
        const b = { limit, reserved };
        const left = remaining(b);
        expect(left >= 0n).toBe(true);
        if (reserved <= limit) {
          expect(fits(b, amount)).toBe(amount <= left);
          expect(fits(b, left)).toBe(true);
        } else {
          expect(left).toBe(0n);
          expect(fits(b, 0n)).toBe(false);
        }
      }),
    );
  });

  it('names the shortfall when a lowered limit is below the reservations', () => {
    const b = { limit: parseUsdText('10', 'l'), reserved: parseUsdText('12', 'r') };
    expect(remaining(b)).toBe(0n);
    expect(microsToDecimal(shortfall(b, parseUsdText('0.5', 'a')))).toBe('2.5');
  });
});
