import { invalidField } from './errors.js';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parse a duration such as `90d`, `12h`, `30m` or `45s` into milliseconds.
 * Bounds are explicit so a typo cannot mint a credential that outlives its purpose.
 */
export function parseDuration(field: string, text: string, bounds: { minMs: number; maxMs: number }): number {
  const m = /^([1-9][0-9]{0,6})([smhd])$/.exec(text.trim());
  if (!m) throw invalidField(field, 'a duration such as 90d, 12h, 30m or 45s');
  const ms = Number(m[1]) * UNIT_MS[m[2] as string]!;
  if (ms < bounds.minMs || ms > bounds.maxMs) {
    throw invalidField(
      field,
      `a duration between ${formatDuration(bounds.minMs)} and ${formatDuration(bounds.maxMs)}`,
    );
  }
  return ms;
}

export function formatDuration(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.round(ms / 1000)}s`;
}
