import { describe, expect, it } from 'vitest';
import { randomId } from '../../../src/core/ids.js';

describe('randomId', () => {
  it('is the prefix and 128 random bits in hex, never repeated across pool refills', () => {
    const seen = new Set<string>();
    // 4 KiB of pool is 256 ids: this crosses many refills.
    for (let i = 0; i < 5_000; i++) {
      const id = randomId('int');
      expect(id).toMatch(/^int_[0-9a-f]{32}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(5_000);
  });

  it('spreads its bits: every hex digit appears at every position over many ids', () => {
    const digits = Array.from({ length: 32 }, () => new Set<string>());
    for (let i = 0; i < 2_000; i++) {
      const hex = randomId('x').slice(2);
      for (let p = 0; p < 32; p++) digits[p]!.add(hex[p]!);
    }
    for (const d of digits) expect(d.size).toBe(16);
  });
});
