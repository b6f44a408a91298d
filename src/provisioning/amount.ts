import { parseUsd, parseUsdText, type Micros } from '../core/money.js';

/** USD from a flag (text) or a document (a number); nothing given is zero. */
export function parseAmount(field: string, value: string | number | undefined): Micros {
  if (value === undefined) return 0n;
  return typeof value === 'number' ? parseUsd(value, field) : parseUsdText(value.trim(), field);
}
