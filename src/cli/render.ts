import type { Column } from './list-output.js';
import { renderTable } from './table.js';

/** One record as a two-column table; nested values as compact JSON. */
export function renderRecord(record: Record<string, unknown>): string {
  return renderTable(
    ['field', 'value'],
    Object.entries(record).map(([k, v]) => [
      k,
      typeof v === 'object' && v !== null ? JSON.stringify(v) : (v as string),
    ]),
  );
}

/** Rows of a table by its columns. */
export function renderRows<T>(columns: readonly Column<T>[], items: readonly T[]): string {
  return renderTable(
    columns.map((c) => c.header),
    items.map((item) => columns.map((c) => c.cell(item))),
  );
}
