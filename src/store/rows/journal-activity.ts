/**
 * What of a journal record the console's overview counts by, besides the clock hour and the
 * kind: its `outcome` and `code` ('' where absent or null). Undefined when either is neither
 * a string nor absent: the writer then has SQLite read both from the stored record, the one
 * way the counts of a journal that predates the writer were made, so such a value is never
 * rendered as text in two ways.
 */
export function activityOf(record: Record<string, unknown>): [outcome: string, code: string] | undefined {
  const outcome = textOf(record.outcome);
  const code = textOf(record.code);
  return outcome === undefined || code === undefined ? undefined : [outcome, code];
}

function textOf(v: unknown): string | undefined {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : undefined;
}
