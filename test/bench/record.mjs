// Records one run of `npm run bench` in docs/performance.md: one dated row (date, commit,
// machine, each section's ratio against its same-run baseline) appended to the table between
// the `<!-- bench:rows -->` markers. `npm run bench -- --record` (or `-- SECTION --record`)
// records the run it just made; `node test/bench/record.mjs FILE` records a saved output.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const PERFORMANCE_MD = join(root, 'docs/performance.md');
export const START = '<!-- bench:rows -->';
export const END = '<!-- /bench:rows -->';

/**
 * The table's columns after date, commit and machine: each section of run.mjs, the line it
 * prints, and the figure kept from it (the ratio within the run: absolute figures move with
 * the host). The legend in docs/performance.md says what each side does.
 */
export const COLUMNS = [
  { section: 'startup', pattern: /^startup: .*ratio ([\d.]+)x/m, cell: (m) => `${m[1]}x` },
  {
    section: 'compare',
    pattern:
      /(?:ratio svc\/Cerbos: repeat ([\d.]+)[^;]*; fresh ([\d.]+)[\s\S]*?)?ratio svc\/bare: repeat ([\d.]+)/m,
    cell: (m) => (m[1] ? `repeat ${m[1]}, fresh ${m[2]} Cerbos; ${m[3]} bare` : `n/a Cerbos; ${m[3]} bare`),
  },
  {
    section: 'auth',
    pattern: /^authenticated GET \/v1\/capabilities: .*ratio ([\d.]+) of the ceiling/m,
    cell: (m) => `${m[1]} bare`,
  },
  {
    section: 'auth-timing',
    pattern: /^token check, .*\(difference (-?[\d.]+) us\)/m,
    cell: (m) => `gap ${m[1]} us`,
  },
  {
    section: 'decision',
    pattern: /^allowed POST \/v1\/action: .*ratio ([\d.]+) of the ceiling/m,
    cell: (m) => `${m[1]} bare`,
  },
  { section: 'metrics', pattern: /--metrics-listen .*ratio ([\d.]+) /m, cell: (m) => `${m[1]} without` },
  {
    section: 'notify',
    pattern:
      /subscribed to decision\.refused .*ratio ([\d.]+) [\s\S]*?^notify drain: .*\(drain\/limit ([\d.]+)\)/m,
    cell: (m) => `${m[1]} without; drain ${m[2]} of limit`,
  },
  {
    section: 'brokered',
    pattern: /^allowed POST \/v1\/brokered .*ratio ([\d.]+);.* ([\d.]+)x \(/m,
    cell: (m) => `${m[1]} direct; ${m[2]}x at one`,
  },
  {
    section: 'sdk',
    pattern: /through the TypeScript SDK: .*\(([\d.]+)x\); 32 callers .*\(ratio ([\d.]+)\)/m,
    cell: (m) => `${m[1]}x at one; ${m[2]} at 32`,
  },
  {
    section: 'evidence',
    pattern: /svc export [\d.]+ s, ([\d.]+)x sha256sum.*svc-verify [\d.]+ s, ([\d.]+)x sha256sum/m,
    cell: (m) => `export ${m[1]}x; verify ${m[2]}x`,
  },
  {
    section: 'proofs',
    pattern: /^proofs, .*inclusion p50 ([\d.]+) ms.*consistency p50 ([\d.]+) ms/m,
    cell: (m) => `p50 ${m[1]} / ${m[2]} ms`,
  },
  {
    section: 'lists',
    pattern: /^svc receipts list --all --json, (\d+) receipts: .*ratio ([\d.]+)x/gm,
    cell: (ms) => ms.map((m) => `${Number(m[1]).toLocaleString('en-US')}: ${m[2]}x`).join('; '),
    all: true,
  },
  {
    section: 'policy',
    pattern:
      /^policy step .*a miss, the engine every time: ([\d.]+) us, before the lean call [\d.]+ us \(([\d.]+)x\)/m,
    cell: (m) => `miss ${m[1]} us (${m[2]}x faster)`,
  },
];

/** The figure of each section the output shows; a section the run skipped is absent. */
export function parseBench(output) {
  const figures = {};
  for (const c of COLUMNS) {
    if (c.all) {
      const ms = [...output.matchAll(c.pattern)];
      if (ms.length > 0) figures[c.section] = c.cell(ms);
    } else {
      const m = c.pattern.exec(output);
      if (m) figures[c.section] = c.cell(m);
    }
  }
  return figures;
}

/** A Markdown table cell: a `|` would end the cell, a newline the row. */
const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** One row of the table: date, commit, machine, then each column ('' where the run skipped it). */
export function benchRow({ date, commit, machine, figures }) {
  const cells = [date, commit, machine, ...COLUMNS.map((c) => figures[c.section] ?? '')];
  return `| ${cells.map(cell).join(' | ')} |`;
}

/** The page with `row` appended as the table's last row, between the markers. */
export function appendRow(markdown, row) {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start === -1 || end === -1 || end < start) {
    throw new Error(`docs/performance.md: expected the markers ${START} and ${END} around the results table`);
  }
  const table = markdown.slice(start + START.length, end).trim();
  if (!table.startsWith('|')) throw new Error(`docs/performance.md: expected a table after ${START}`);
  return `${markdown.slice(0, start)}${START}\n\n${table}\n${row}\n\n${markdown.slice(end)}`;
}

/** This host, as the table names it: cores and CPU model. */
export function machine() {
  const cores = cpus();
  return `${cores.length} × ${(cores[0]?.model ?? 'unknown CPU').replace(/\s+/g, ' ').trim()}`;
}

function commit() {
  const r = spawnSync('git', ['-C', root, 'describe', '--always', '--dirty', '--abbrev=7'], {
    encoding: 'utf8',
  });
  return r.status === 0 ? r.stdout.trim() : 'unknown';
}

/** Append this run to docs/performance.md (prettier-formatted, as the repository keeps it). */
export async function recordRun(output, { file = PERFORMANCE_MD, now = new Date() } = {}) {
  const figures = parseBench(output);
  if (Object.keys(figures).length === 0) {
    throw new Error('bench output: expected at least one section to record, found none');
  }
  const row = benchRow({
    date: now.toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    commit: commit(),
    machine: machine(),
    figures,
  });
  const prettier = await import('prettier');
  const text = appendRow(readFileSync(file, 'utf8'), row);
  const options = (await prettier.resolveConfig(file)) ?? {};
  writeFileSync(file, await prettier.format(text, { ...options, filepath: file }));
  return row;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const from = process.argv[2];
  const output = readFileSync(from ?? 0, 'utf8');
  const row = await recordRun(output);
  console.log(`recorded in docs/performance.md: ${row}`);
}
