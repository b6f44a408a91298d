import chalk from 'chalk';

export type Cell = string | number | boolean | null | undefined;

const GAP = '  ';

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
 * Column widths of a table: one pass over the rows. The last column is never padded, so
 * its width is not needed.
 */
export function columnWidths(headers: readonly string[], rows: readonly (readonly string[])[]): number[] {
  const widths = headers.map((h) => h.length);
  for (const row of rows) {
    for (let i = 0; i < widths.length - 1; i++) {
      const n = row[i]?.length ?? 0;
      if (n > widths[i]!) widths[i] = n;
    }
  }
  return widths;
}

/** One row, padded to the widths; a wider cell pushes the rest of its row, never wraps. */
export function formatRow(cells: readonly string[], widths: readonly number[]): string {
  let line = '';
  const last = widths.length - 1;
  for (let i = 0; i < last; i++) line += (cells[i] ?? '').padEnd(widths[i]!) + GAP;
  return (line + (cells[last] ?? '')).trimEnd();
}

/** The header and its rule, bold where the terminal shows colour. */
export function headerLines(headers: readonly string[], widths: readonly number[]): string[] {
  const last = widths.length - 1;
  const head = headers.map((h, i) => chalk.bold(i === last ? h : h.padEnd(widths[i]!))).join(GAP);
  const rule = widths.map((w, i) => '-'.repeat(i === last ? headers[i]!.length : w)).join(GAP);
  return [head.trimEnd(), rule];
}

/**
 * A plain aligned table for human output (`--json` is the machine-readable form). Linear
 * in the number of cells: widths in one pass, each row formatted once, one join.
 */
export function renderTable(headers: string[], rows: readonly (readonly Cell[])[]): string {
  const text = rows.map((r) => r.map(cellText));
  const widths = columnWidths(headers, text);
  const lines = headerLines(headers, widths);
  for (const r of text) lines.push(formatRow(r, widths));
  return lines.join('\n');
}
