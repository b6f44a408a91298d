import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cjson } from '../../../src/evidence/cjson.js';
import { FINDING_CODES } from '../../../src/evidence/verify/index.js';
import type { VerificationReport } from '../../../src/evidence/verify/index.js';
import { joinLines, parse, VECTOR_LINES, VECTOR_TEXT, verify, type Json } from './export-tamper.js';

const ORIGINAL = Buffer.from(VECTOR_TEXT);

function expectWellFormed(report: VerificationReport): void {
  expect(report.result).toBe(report.findings.length + report.findingsOmitted === 0 ? 'pass' : 'fail');
  for (const finding of report.findings) {
    expect(Object.keys(FINDING_CODES)).toContain(finding.code);
    expect(finding.line === null || (Number.isInteger(finding.line) && finding.line >= 1)).toBe(true);
  }
}

describe('verifier: never throws on bad input, whatever the bytes', () => {
  it('survives random byte edits, deletions and duplications', async () => {
    const edit = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
      fc.record({
        kind: fc.constant('cut' as const),
        at: fc.nat(),
        length: fc.integer({ min: 1, max: 300 }),
      }),
      fc.record({
        kind: fc.constant('copy' as const),
        at: fc.nat(),
        length: fc.integer({ min: 1, max: 300 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 4 }), async (edits) => {
        let bytes = Buffer.from(ORIGINAL);
        for (const e of edits) {
          const at = e.at % (bytes.length + 1);
          if (e.kind === 'set' && at < bytes.length) bytes[at] = e.byte;
          if (e.kind === 'cut') bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + e.length)]);
          if (e.kind === 'copy')
            bytes = Buffer.concat([
              bytes.subarray(0, at),
              bytes.subarray(at, at + e.length),
              bytes.subarray(at),
            ]);
        }
        const report = await verify(bytes);
        expectWellFormed(report);
        if (bytes.equals(ORIGINAL)) expect(report.result).toBe('pass');
      }),
      { numRuns: 300 },
    );
  });

  it('survives any JSON value in any field of any line', async () => {
    const fieldsOf = (value: Json, prefix: string[] = []): string[][] =>
      Object.entries(value).flatMap(([key, child]) => {
        const path = [...prefix, key];
        return child !== null && typeof child === 'object' && !Array.isArray(child)
          ? [path, ...fieldsOf(child as Json, path)]
          : [path];
      });
    const setAt = (value: Json, path: string[], replacement: unknown): Json => {
      const [head, ...rest] = path;
      return {
        ...value,
        [head!]: rest.length === 0 ? replacement : setAt(value[head!] as Json, rest, replacement),
      };
    };
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.nat(),
        fc.jsonValue({ maxDepth: 2 }),
        async (linePick, fieldPick, replacement) => {
          const index = linePick % VECTOR_LINES.length;
          const line = parse(VECTOR_LINES[index]!);
          const fields = fieldsOf(line);
          const lines = [...VECTOR_LINES];
          lines[index] = cjson(setAt(line, fields[fieldPick % fields.length]!, replacement));
          expectWellFormed(await verify(joinLines(lines)));
        },
      ),
      { numRuns: 400 },
    );
  });
});
