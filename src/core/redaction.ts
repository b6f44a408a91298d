import type { Tombstone } from '../evidence/export-line.js';
import { isWellFormedUnicode } from '../evidence/encoding.js';
import { invalidField, SvcError } from './errors.js';
import { checkSlug } from './ids.js';

export interface RedactionInput {
  from: number;
  to: number;
  reason: string;
  authorisedBy: string;
  policyId?: string | undefined;
}

const MAX_TEXT = 500;

function text(field: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.length > MAX_TEXT || !isWellFormedUnicode(trimmed)) {
    throw invalidField(field, `text of 1 to ${MAX_TEXT} characters`);
  }
  return trimmed;
}

/**
 * The tombstone of a redaction (evidence-format.md §7), checked against the log it will
 * join: `1 <= from <= to < R.sequence`, where R, the redaction record, takes the next
 * sequence, so a range can never reach R itself.
 */
export function redactionTombstone(input: RedactionInput, logSize: number, removedAt: string): Tombstone {
  const { from, to } = input;
  if (!Number.isSafeInteger(from) || from < 1)
    throw invalidField('from', 'an entry sequence, an integer >= 1');
  if (!Number.isSafeInteger(to) || to < from) throw invalidField('to', `an entry sequence >= from (${from})`);
  if (to > logSize) {
    throw new SvcError(
      'invalid_request',
      logSize === 0
        ? 'the journal is empty: there is nothing to redact'
        : `the journal holds entries 1..${logSize}; a range ending at ${to} would reach the redaction record itself (sequence ${logSize + 1}) or beyond`,
      { field: 'to' },
    );
  }
  const tombstone: Tombstone = {
    from_sequence: from,
    to_sequence: to,
    reason: text('reason', input.reason),
    authorised_by: checkSlug('authorised_by', input.authorisedBy),
    removed_at: removedAt,
    record_count: to - from + 1,
  };
  if (input.policyId !== undefined) tombstone.policy_id = text('policy_id', input.policyId);
  return tombstone;
}
