import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  MAX_ATTEMPTS,
  MAX_RETRY_SPEEDUP,
  RETRY_STEPS_MS,
  retryDelayMs,
} from '../../../../src/core/notify/retry-schedule.js';

const SPEC_STEPS = [5, 30, 120, 600, 3600, 21600, 86400].map((s) => s * 1000);

describe('retry schedule', () => {
  it('follows the spec steps: 5 s, 30 s, 2 min, 10 min, 1 h, 6 h, 24 h, then dead', () => {
    expect(RETRY_STEPS_MS).toEqual(SPEC_STEPS);
    expect(MAX_ATTEMPTS).toBe(8);
    // The middle of the jitter window is the step itself.
    for (let a = 1; a <= 7; a++) expect(retryDelayMs(a, () => 0.5)).toBe(SPEC_STEPS[a - 1]);
    expect(retryDelayMs(8, () => 0.5)).toBeNull();
    expect(retryDelayMs(9, () => 0.5)).toBeNull();
  });

  it('jitters within ±20 % of each step, reaching both ends', () => {
    expect(retryDelayMs(1, () => 0)).toBe(4000);
    expect(retryDelayMs(1, () => 0.999999)).toBe(6000);
    expect(retryDelayMs(7, () => 0)).toBe(0.8 * 86_400_000);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }),
        fc.double({ min: 0, max: 1, maxExcluded: true }),
        (a, r) => {
          const d = retryDelayMs(a, () => r)!;
          const step = SPEC_STEPS[a - 1]!;
          return d >= 0.8 * step && d <= 1.2 * step;
        },
      ),
    );
  });

  it('spreads a burst: different random draws give different waits', () => {
    const waits = new Set([0.1, 0.3, 0.5, 0.7, 0.9].map((r) => retryDelayMs(3, () => r)));
    expect(waits.size).toBe(5);
  });

  it('clamps a random source outside [0, 1) instead of stretching the window', () => {
    expect(retryDelayMs(2, () => 7)).toBe(36_000);
    expect(retryDelayMs(2, () => -3)).toBe(24_000);
    expect(retryDelayMs(2, () => Number.NaN)).toBe(30_000);
  });

  it('a speed-up divides every wait and never changes the number of attempts', () => {
    expect(retryDelayMs(7, () => 0.5, 1000)).toBe(86_400);
    expect(retryDelayMs(8, () => 0.5, 1000)).toBeNull();
    expect(retryDelayMs(1, () => 0.5, MAX_RETRY_SPEEDUP)).toBe(0);
  });

  it('refuses nonsense: no attempt yet, a fractional or out-of-range speed-up', () => {
    expect(() => retryDelayMs(0, Math.random)).toThrow(/attempts/);
    expect(() => retryDelayMs(1.5, Math.random)).toThrow(/attempts/);
    expect(() => retryDelayMs(1, Math.random, 0)).toThrow(/speedup/);
    expect(() => retryDelayMs(1, Math.random, 0.001)).toThrow(/speedup/);
    expect(() => retryDelayMs(1, Math.random, MAX_RETRY_SPEEDUP + 1)).toThrow(/speedup/);
  });
});
