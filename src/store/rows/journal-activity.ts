import type { JournalAppend } from '../../evidence/journal-append.js';

/**
 * The `journal_activity` row an append counts towards, as the console's overview groups
 * the journal: the clock hour of `occurred_at` (UTC, `YYYY-MM-DDTHH`), the kind, and the
 * record's `outcome` and `code` ('' where absent or null). Undefined when either is neither a
 * string nor absent: the writer then has SQLite read them from the stored record, as the
 * counts of a journal that predates the writer were made, so no value is rendered twice in
 * two ways.
 */
export function activityKey(a: JournalAppend): [string, string, string, string] | undefined {
  const outcome = textOf(a.record.outcome);
  const code = textOf(a.record.code);
  if (outcome === undefined || code === undefined) return undefined;
  return [a.occurredAt.slice(0, 13), a.kind, outcome, code];
}

function textOf(v: unknown): string | undefined {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : undefined;
}
