import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../../src/core/duration.js';
import { SvcError } from '../../../src/core/errors.js';

const bounds = { minMs: 1000, maxMs: 10 * 86_400_000 };

describe('durations', () => {
  it('parse units', () => {
    expect(parseDuration('ttl', '45s', bounds)).toBe(45_000);
    expect(parseDuration('ttl', '30m', bounds)).toBe(1_800_000);
    expect(parseDuration('ttl', '12h', bounds)).toBe(43_200_000);
    expect(parseDuration('ttl', '9d', bounds)).toBe(9 * 86_400_000);
  });

  it('refuse malformed and out-of-bounds values, naming the field', () => {
    for (const bad of ['', '0s', '-1d', '1.5h', '10', '1w', '11d', 'd']) {
      let err: unknown;
      try {
        parseDuration('ttl', bad, bounds);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(SvcError);
      expect((err as SvcError).field).toBe('ttl');
      expect((err as SvcError).reason).toMatch(/^ttl: expected/);
    }
  });

  it('format picks the largest whole unit', () => {
    expect(formatDuration(86_400_000)).toBe('1d');
    expect(formatDuration(90 * 60_000)).toBe('90m');
    expect(formatDuration(1000)).toBe('1s');
  });
});
