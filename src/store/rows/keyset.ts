import type { KeysetPage } from '../query-ports.js';

/**
 * Pages are read with `limit + 1` rows: the extra row only says whether another page
 * exists, and the key of the page's last item is where the next one starts.
 */
export function keysetPage<R, T, K>(
  rows: R[],
  limit: number,
  map: (row: R) => T,
  keyOf: (item: T) => K,
): KeysetPage<T, K> {
  const items = rows.slice(0, limit).map(map);
  const last = items.at(-1);
  return { items, next: rows.length > limit && last !== undefined ? keyOf(last) : undefined };
}
