import type { Tombstone } from '../evidence/export-line.js';
import { isWellFormedUnicode } from '../evidence/encoding.js';
import type { Appended, JournalAppend } from '../evidence/journal-append.js';
import type { ActorKind } from './actor.js';
import { invalidField, SvcError } from './errors.js';
import { checkGuarded } from './guarded-write.js';
import { checkSlug } from './ids.js';
import { redactionRecord } from './records/redaction-record.js';
import { asker, type UseCase } from './use-case.js';

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

/** A redaction as asked for: the range, why, by whom, and when (the removal time). */
export interface RedactionRequest extends RedactionInput {
  tenantId: string;
  at: string;
}

export interface RedactionResult {
  tombstone: Tombstone;
  /** Sequence and receipt of the redaction record R. */
  sequence: number;
  receiptId: string;
}

/** A journal entry that already carries a tombstone: redacted, or a redaction record. */
export interface TombstonedEntry {
  sequence: number;
  kind: string;
  tombstone: Pick<Tombstone, 'from_sequence' | 'to_sequence'>;
}

/** What a redaction writes, in one transaction with the reads it was decided on. */
export interface RedactionWrites {
  tenantId: string;
  tombstone: Tombstone;
  /** the redaction record R */
  record: JournalAppend;
  at: string;
}

/**
 * The store operations a redaction asks for, inside the one transaction that holds the
 * tenant's journal (SQLite's single writer, the PostgreSQL tenant lock), so no entry is
 * appended or redacted between the reads and R.
 */
export interface RedactionOps {
  /** whether the tenant exists, and the kind of the actor named (undefined: no such actor) */
  authoriser(tenantId: string, actorId: string): { tenant: boolean; kind: ActorKind | undefined };
  /** the entries the tenant's journal holds */
  logSize(tenantId: string): number;
  /** the first entry of from..to that carries a tombstone */
  firstTombstoned(tenantId: string, from: number, to: number): TombstonedEntry | undefined;
  /**
   * Append R, erase the range's operational copies, and blank the entries of the range that
   * carry no tombstone yet; answers R's append and how many entries it blanked.
   */
  apply(writes: RedactionWrites): { appended: Appended; blanked: number };
}

const ask = asker<RedactionOps>();

/**
 * Retention redacts in place (evidence-format.md §7): authorised by a registered human of
 * the tenant, over a range of entries that overlaps no redacted range and holds no
 * redaction record, journaled as R in the transaction that blanks the range.
 */
export function* redaction(r: RedactionRequest): UseCase<RedactionOps, RedactionResult> {
  checkAuthoriser(r, yield* ask('authoriser', r.tenantId, r.authorisedBy));
  const tombstone = redactionTombstone(r, yield* ask('logSize', r.tenantId), r.at);
  checkNoOverlap(r, yield* ask('firstTombstoned', r.tenantId, r.from, r.to));
  const record = redactionRecord({ tenantId: r.tenantId, authorisedBy: r.authorisedBy, tombstone, at: r.at });
  const { appended, blanked } = yield* ask('apply', { tenantId: r.tenantId, tombstone, record, at: r.at });
  checkGuarded(`the redaction of entries ${r.from}..${r.to}`, blanked, r.to - r.from + 1);
  return { tombstone, sequence: appended.sequence, receiptId: record.receiptId };
}

function checkAuthoriser(
  r: Pick<RedactionRequest, 'tenantId' | 'authorisedBy'>,
  found: { tenant: boolean; kind: ActorKind | undefined },
): void {
  if (!found.tenant) throw new SvcError('not_found', `no tenant ${r.tenantId}`);
  if (found.kind !== 'human') {
    throw new SvcError(
      'invalid_request',
      found.kind === undefined
        ? `authorised_by: no actor ${r.authorisedBy} in tenant ${r.tenantId}`
        : `authorised_by: ${r.authorisedBy} is ${found.kind === 'agent' ? 'an' : 'a'} ${found.kind}; a redaction is authorised by a registered human`,
      { field: 'authorised_by', remedy: 'name a human of the tenant (svc actor list)' },
    );
  }
}

/** Ranges never overlap, and a redaction record is never redacted: either would orphan a tombstone. */
function checkNoOverlap(r: Pick<RedactionRequest, 'from' | 'to'>, clash: TombstonedEntry | undefined): void {
  if (clash === undefined) return;
  const range = `${clash.tombstone.from_sequence}..${clash.tombstone.to_sequence}`;
  throw new SvcError(
    'conflict',
    clash.kind === 'redaction'
      ? `entry ${clash.sequence} is the redaction record of entries ${range}; a redaction record is never redacted`
      : `the range ${r.from}..${r.to} overlaps the redacted range ${range}`,
    { remedy: 'choose a range of entries that are not redacted and hold no redaction record' },
  );
}
