import chalk from 'chalk';
import Table from 'cli-table3';

/** A plain table for human output; `--json` is the machine-readable form. */
export function renderTable(headers: string[], rows: (string | number | null | undefined)[][]): string {
  const table = new Table({ head: headers.map((h) => chalk.bold(h)), style: { head: [], border: [] } });
  for (const r of rows) table.push(r.map((c) => (c === null || c === undefined ? '' : String(c))));
  return table.toString();
}
