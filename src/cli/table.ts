import chalk from 'chalk';
import Table from 'cli-table3';

export type Cell = string | number | boolean | null | undefined;

/** No borders: columns apart by two spaces, one line per row. */
const NO_BORDER = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

/**
 * cli-table3 truncates a cell wider than a fixed column and marks it. The mark is a NUL:
 * `cellText` escapes every control character, so it never occurs in a cell and its presence
 * in a line means that row overflowed.
 */
const OVERFLOW = '\u0000';

/**
 * Control characters (C0, DEL, C1) and the bidirectional overrides, shown escaped: cells
 * carry text that agents and remote parties chose (intents, reasons, ids), and an escape
 * sequence or a bidi override must never reach the operator's terminal as such.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function escapeUnsafe(ch: string): string {
  if (ch === '\n') return '\\n';
  if (ch === '\t') return '\\t';
  if (ch === '\r') return '\\r';
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** A cell as one line of terminal-safe text. */
export function cellText(c: Cell): string {
  if (c === null || c === undefined) return '';
  const s = String(c);
  return UNSAFE.test(s) ? s.replace(UNSAFE, escapeUnsafe) : s;
}

/**
 * cli-table3's layout grows faster than its row count; rows go through it this many at a
 * time, in columns fixed beforehand, so a page of any size costs time in proportion to it.
 */
const CHUNK = 100;

/** One cli-table3 table; toString fills colWidths with the widths it used. */
function layoutChunk(
  rows: readonly (readonly string[])[],
  widths?: readonly number[],
): { lines: string[]; widths: number[] } {
  const table = new Table({
    chars: NO_BORDER,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
    truncate: OVERFLOW,
    ...(widths ? { colWidths: [...widths] } : {}),
  });
  table.push(...rows.map((r) => [...r]));
  const text = table.toString();
  const used = table.options.colWidths.map((w) => w ?? 0);
  return { lines: text === '' ? [] : text.split('\n').map((l) => l.trimEnd()), widths: used };
}

/**
 * Rows laid out by cli-table3, which measures cells in terminal columns (a CJK character or
 * an emoji takes two), each line without trailing blanks. `widths` fixes the columns; without
 * it they fit the widest cell of each. The widths used come back with the lines.
 */
function layout(
  rows: readonly (readonly string[])[],
  widths?: readonly number[],
): { lines: string[]; widths: number[] } {
  if (widths === undefined && rows.length <= CHUNK) return layoutChunk(rows);
  let fixed = widths ? [...widths] : [];
  if (widths === undefined) {
    for (let i = 0; i < rows.length; i += CHUNK) {
      const own = layoutChunk(rows.slice(i, i + CHUNK)).widths;
      fixed = own.map((w, c) => Math.max(w, fixed[c] ?? 0));
    }
  }
  const lines: string[] = [];
  for (let i = 0; i < rows.length; i += CHUNK)
    lines.push(...layoutChunk(rows.slice(i, i + CHUNK), fixed).lines);
  return { lines, widths: fixed };
}

/**
 * The first page of a table: the header (bold where the terminal shows colour), its rule and
 * the rows, columns as wide as their widest cell. The rule under the last column is as long
 * as its header: that column is never padded.
 */
export function firstPage(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): { lines: string[]; widths: number[] } {
  const { lines, widths } = layout([headers.map((h) => chalk.bold(h)), ...rows]);
  const last = widths.length - 1;
  const rule = widths.map((w, i) => '-'.repeat(i === last ? headers[i]!.length : w)).join(NO_BORDER.middle);
  lines.splice(1, 0, rule);
  return { lines, widths };
}

/**
 * A later page, in the first page's columns: a row with a wider cell is laid out on its
 * own, so it pushes the rest of its row instead of being cut or reflowing what was printed.
 */
export function laterPage(rows: readonly (readonly string[])[], widths: readonly number[]): string[] {
  const lines = layout(rows, widths).lines;
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.includes(OVERFLOW)) continue;
    const own = layout([rows[i]!]).widths;
    lines[i] = layout(
      [rows[i]!],
      widths.map((w, c) => Math.max(w, own[c] ?? 0)),
    ).lines[0]!;
  }
  return lines;
}

/**
 * A plain aligned table for human output (`--json` is the machine-readable form): every
 * cell escaped, then laid out once.
 */
export function renderTable(headers: string[], rows: readonly (readonly Cell[])[]): string {
  return firstPage(
    headers,
    rows.map((r) => r.map(cellText)),
  ).lines.join('\n');
}
