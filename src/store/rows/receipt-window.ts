import type { PublishedReceipt } from '../../core/receipt.js';
import { publish, type ReceiptRow } from './journal-entry.js';

/**
 * One newest-first window of journal rows, as both drivers return it (`readable`: 1n from
 * SQLite, true from PostgreSQL): the rows the viewer reads, published, and the `before` of
 * the next window when the window was full (older rows may remain).
 */
export function newestWindow(
  rows: (ReceiptRow & { readable: unknown })[],
  span: number,
): { items: PublishedReceipt[]; next?: number | undefined } {
  const last = rows.at(-1);
  return {
    items: rows.filter((r) => r.readable === true || Number(r.readable) === 1).map(publish),
    next: rows.length === span && last !== undefined ? Number(last.sequence) : undefined,
  };
}
