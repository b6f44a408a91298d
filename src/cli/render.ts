import { renderTable } from './table.js';

/** One record as a two-column table; nested values as compact JSON. */
export function renderRecord(record: Record<string, unknown>): string {
  return renderTable(
    ['field', 'value'],
    Object.entries(record).map(([k, v]) => [
      k,
      v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v),
    ]),
  );
}

/** The cursor of the next page, said on stderr where a human reads it. */
export function morePages(next: string | null): string | undefined {
  return next === null ? undefined : `More: --cursor ${next} (or --all)`;
}
