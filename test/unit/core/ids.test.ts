import { describe, expect, it } from 'vitest';
import { randomId } from '../../../src/core/ids.js';

describe('randomId', () => {
  it('is the prefix and 128 random bits in hex, never repeated across pool refills', () => {
    const seen = new Set<string>();
    // several refills of the 256-id block
    for (let i = 0; i < 2_000; i++) {
      const id = randomId('int');
      expect(id).toMatch(/^int_[0-9a-f]{32}$/);
      seen.add(id.slice(4));
    }
    expect(seen.size).toBe(2_000);
    expect(seen.has('0'.repeat(32))).toBe(false);
  });

  it('uses every bit: each hex digit takes many values at every position', () => {
    const ids = Array.from({ length: 512 }, () => randomId('x').slice(2));
    for (let pos = 0; pos < 32; pos++) {
      expect(new Set(ids.map((id) => id[pos])).size).toBeGreaterThan(8);
    }
  });
});
