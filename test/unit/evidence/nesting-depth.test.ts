import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_NESTING_DEPTH, nestsDeeperThan } from '../../../src/evidence/verify/nesting-depth.js';
import { verifyExport } from '../../../src/evidence/verify/index.js';
import { nodeCrypto } from '../../../src/evidence/node-crypto.js';
import { readFileSync } from 'node:fs';
import { vectorPath } from './vector-paths.js';

const readVector = (relative: string): string => readFileSync(vectorPath(relative), 'utf8');

function depthOf(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  const children = Array.isArray(v) ? v : Object.values(v);
  return 1 + Math.max(0, ...children.map(depthOf));
}

const nested = (depth: number, open: string, close: string, inner = '0') =>
  open.repeat(depth) + inner + close.repeat(depth);

describe('nesting depth, scanned before JSON.parse', () => {
  it('counts arrays and objects up to the limit, and one more is too deep', () => {
    for (const [open, close] of [
      ['[', ']'],
      ['{"a":', '}'],
    ] as const) {
      expect(nestsDeeperThan(nested(MAX_NESTING_DEPTH, open, close), MAX_NESTING_DEPTH)).toBe(false);
      expect(nestsDeeperThan(nested(MAX_NESTING_DEPTH + 1, open, close), MAX_NESTING_DEPTH)).toBe(true);
    }
  });

  it('ignores brackets inside strings, escaped quotes and backslashes included', () => {
    const strings = ['[[[{{{', '\\"[[[', '\\\\', '\\\\\\"{{{', '}]}]'];
    for (const s of strings) {
      const text = `{"a":"${s}","b":[["${s}"]]}`; // 3 deep
      expect(depthOf(JSON.parse(text))).toBe(3);
      expect(nestsDeeperThan(text, 3)).toBe(false);
      expect(nestsDeeperThan(text, 2)).toBe(true);
    }
  });

  it('agrees with the depth of the parsed value on generated JSON (seeded)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 7 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(nestsDeeperThan(text, limit)).toBe(depthOf(JSON.parse(text)) > limit);
      }),
      { numRuns: 2000, seed: 1010 },
    );
  });

  it('the verifier reports a deep line as one finding and goes on with the rest of the file', async () => {
    const lines = readVector('svc-export/export.jsonl').trimEnd().split('\n');
    const deep = `{"a":${nested(100_000, '[', ']')}}`;
    const file = [lines[0], deep, ...lines.slice(1)].map((l) => l + '\n').join('');
    const key = new Uint8Array(Buffer.from(readVector('svc-export/public-key.b64').trim(), 'base64'));
    const report = await verifyExport([file], { publicKeys: [key] }, nodeCrypto);
    expect(report.result).toBe('fail');
    expect(report.findings).toEqual([
      { code: 'nesting_too_deep', line: 2, message: expect.stringMatching(/more than 32 deep/) },
    ]);
    expect(report.counts.entries).toBe(7);
  });
});
