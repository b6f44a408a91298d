import { afterEach, describe, expect, it, vi } from 'vitest';
import { newId } from '../../../src/core/ids.js';

describe('newId', () => {
  afterEach(() => vi.useRealTimers());

  it('is the prefix, 48 bits of milliseconds and 80 random bits in hex, never repeated across pool refills', () => {
    const seen = new Set<string>();
    const before = Date.now();
    // several refills of the 256-id block
    for (let i = 0; i < 2_000; i++) {
      const id = newId('int');
      expect(id).toMatch(/^int_[0-9a-f]{32}$/);
      seen.add(id.slice(4));
    }
    const after = Date.now();
    expect(seen.size).toBe(2_000);
    for (const hex of seen) {
      const ms = parseInt(hex.slice(0, 12), 16);
      expect(ms).toBeGreaterThanOrEqual(before);
      expect(ms).toBeLessThanOrEqual(after);
      expect(hex.slice(12)).not.toBe('0'.repeat(20));
    }
  });

  it('sorts by the millisecond it was minted in', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const ids: string[] = [];
    for (const ms of [1, 255, 256, 1_700_000_000_000, 2 ** 48 - 1]) {
      vi.setSystemTime(ms);
      ids.push(newId('rcp'), newId('rcp'));
    }
    const minted = (id: string) => id.slice(4, 16);
    expect([...ids].sort().map(minted)).toEqual(ids.map(minted));
    expect(ids[0]!.slice(4, 16)).toBe('000000000001');
    expect(ids.at(-1)!.slice(4, 16)).toBe('ffffffffffff');
  });

  it('uses every random bit: each of the last 20 hex digits takes many values', () => {
    const ids = Array.from({ length: 512 }, () => newId('x').slice(2));
    for (let pos = 12; pos < 32; pos++) {
      expect(new Set(ids.map((id) => id[pos])).size).toBeGreaterThan(8);
    }
  });
});
