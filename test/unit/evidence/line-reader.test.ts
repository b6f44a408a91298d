import { describe, expect, it } from 'vitest';
import { readLines, type RawLine } from '../../../src/evidence/verify/line-reader.js';

const collect = async (chunks: (string | Uint8Array)[], max?: number): Promise<RawLine[]> => {
  const lines: RawLine[] = [];
  for await (const line of readLines(chunks, max)) lines.push(line);
  return lines;
};
const summary = (lines: RawLine[]): [string, boolean, boolean][] =>
  lines.map((line) => [Buffer.from(line.bytes).toString('latin1'), line.terminated, line.tooLong]);

describe('readLines', () => {
  it('splits on \\n only, keeping CR and other bytes for the checks', async () => {
    expect(summary(await collect(['a\r\nb\n\nc']))).toEqual([
      ['a\r', true, false],
      ['b', true, false],
      ['', true, false],
      ['c', false, false],
    ]);
  });

  it('yields nothing for an empty source and one blank line for "\\n"', async () => {
    expect(await collect([])).toEqual([]);
    expect(await collect([''])).toEqual([]);
    expect(summary(await collect(['\n']))).toEqual([['', true, false]]);
  });

  it('joins lines across chunk boundaries and numbers them from 1', async () => {
    const lines = await collect(['ab', 'c\nd', '', 'e\n', 'f', '\n']);
    expect(summary(lines)).toEqual([
      ['abc', true, false],
      ['de', true, false],
      ['f', true, false],
    ]);
    expect(lines.map((line) => line.number)).toEqual([1, 2, 3]);
  });

  it('skips a too-long line to its end without keeping it, and goes on', async () => {
    const lines = await collect(['12345', '6789\nok\n', '1234567890'], 8);
    expect(summary(lines)).toEqual([
      ['', true, true],
      ['ok', true, false],
      ['', false, true],
    ]);
    expect(lines[0]!.length).toBe(9);
    expect(lines[2]!.length).toBe(10);
  });

  it('keeps a line of exactly the limit', async () => {
    expect(summary(await collect(['12345678\n'], 8))).toEqual([['12345678', true, false]]);
  });

  it('copies bytes, so a producer may reuse its buffer', async () => {
    const buffer = Buffer.from('abc');
    const lines: RawLine[] = [];
    for await (const line of readLines(
      (function* () {
        yield buffer;
        buffer.write('xyz');
        yield Buffer.from('\n');
      })(),
    )) {
      lines.push(line);
    }
    expect(Buffer.from(lines[0]!.bytes).toString()).toBe('abc');
  });
});
