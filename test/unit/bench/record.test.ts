import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendRow, benchRow, COLUMNS, END, parseBench, recordRun, START } from '../../bench/record.mjs';
import { ROOT } from '../../helpers/cli.js';
import { tmpDir } from '../../helpers/tmp.js';

// Lines in the exact format test/bench/run.mjs prints: the startup line from a real run, the
// others with the figures of the 2026-11-24 runs the README used to quote, and the policy and
// compare lines of the 2026-11-27 run.
const SAMPLE = readFileSync(join(ROOT, 'test/bench/samples/run-output.txt'), 'utf8');

describe('the bench recorder', () => {
  it("keeps each section's ratio from the output, and nothing for a section the run skipped", () => {
    expect(parseBench(SAMPLE)).toEqual({
      startup: '1.17x',
      compare: 'repeat 1.08, fresh 1.00 Cerbos; 0.12 bare',
      auth: '0.20 bare',
      'auth-timing': 'gap 0.7 us',
      notify: '0.337 without; drain 0.93 of limit',
      brokered: '0.03 direct; 20.0x at one',
      sdk: '1.07x at one; 0.88 at 32',
      evidence: 'export 2.3x; verify 8.7x',
      proofs: 'p50 0.12 / 0.08 ms',
      lists: '5,000: 1.15x; 20,000: 1.21x',
      policy: 'miss 73.4 us (1.66x faster)',
    });
    expect(parseBench(SAMPLE.split('\n')[0]!)).toEqual({ startup: '1.17x' });
    expect(
      parseBench(
        '  Cerbos: not run: offline\n  ratio svc/bare: repeat 0.15 (0.13-0.16), fresh 0.14 (0.13-0.15), fresh with the engine every time 0.13 (0.12-0.14)',
      ),
    ).toEqual({
      compare: 'n/a Cerbos; 0.15 bare',
    });
  });

  it('writes one row: date, commit, machine, then every column in order, empty where skipped', () => {
    const row = benchRow({
      date: '2026-11-26 23:40 UTC',
      commit: 'abc1234',
      machine: '2 × AMD | EPYC',
      figures: { startup: '1.17x', lists: '5,000: 1.15x' },
    });
    const cells = row.slice(2, -2).split(' | ');
    expect(cells).toHaveLength(3 + COLUMNS.length);
    expect(cells.slice(0, 4)).toEqual(['2026-11-26 23:40 UTC', 'abc1234', '2 × AMD \\| EPYC', '1.17x']);
    expect(cells.at(-2)).toBe('5,000: 1.15x');
    expect(cells.filter((c) => c === '')).toHaveLength(COLUMNS.length - 2);
    expect(COLUMNS.map((c) => c.section)).toContain('notify');
  });

  it('appends the row as the last of the table between the markers, and refuses a page without them', () => {
    const page = ['# P', '', START, '', '| a | b |', '| - | - |', '| 1 | 2 |', '', END, '', 'After.'].join(
      '\n',
    );
    expect(appendRow(page, '| 3 | 4 |')).toBe(
      ['# P', '', START, '', '| a | b |', '| - | - |', '| 1 | 2 |', '| 3 | 4 |', '', END, '', 'After.'].join(
        '\n',
      ),
    );
    expect(() => appendRow('# P\n\n| a |\n', '| 3 |')).toThrow(/expected the markers/);
    expect(() => appendRow(`${START}\nprose\n${END}`, '| 3 |')).toThrow(/expected a table/);
  });

  it('records a saved output into a copy of docs/performance.md, formatted, keeping the rows before', async () => {
    const tmp = tmpDir('svc-bench-record-');
    try {
      const file = join(tmp.path, 'performance.md');
      copyFileSync(join(ROOT, 'docs/performance.md'), file);
      const before = readFileSync(file, 'utf8');
      const rowsBefore = before
        .slice(before.indexOf(START), before.indexOf(END))
        .split('\n')
        .filter((l) => l.startsWith('|'));
      await recordRun(SAMPLE, { file, now: new Date('2026-11-26T23:40:00Z') });
      const after = readFileSync(file, 'utf8');
      const rows = after
        .slice(after.indexOf(START), after.indexOf(END))
        .split('\n')
        .filter((l) => l.startsWith('|'));
      expect(rows).toHaveLength(rowsBefore.length + 1);
      expect(rows.at(-1)).toMatch(
        /^\| 2026-11-26 23:40 UTC +\| [0-9a-f]{7}(-dirty)? +\| \d+ × .+\| 1\.17x +\| repeat 1\.08, fresh 1\.00 Cerbos; 0\.12 bare/,
      );
      // everything outside the table is left as it was
      expect(after.slice(0, after.indexOf(START))).toBe(before.slice(0, before.indexOf(START)));
      expect(after.slice(after.indexOf(END))).toBe(before.slice(before.indexOf(END)));
      await expect(recordRun('nothing a section prints', { file })).rejects.toThrow(/at least one section/);
    } finally {
      tmp.cleanup();
    }
  });
});
