import type { Appended, JournalAppend } from '../../evidence/journal-append.js';
import type { SealedReceipt } from '../decision/sealed.js';

/** Where a record's ids come from: `newId` in production, a fixed source in tests. */
export type RecordIds = (prefix: string) => string;

/** The receipt of an appended record: its ids and time from the record, sequence and hash from the log. */
export function receiptOf(a: JournalAppend, appended: Appended): SealedReceipt {
  return {
    receiptId: a.receiptId,
    sequence: appended.sequence,
    recordHash: appended.recordHash,
    occurredAt: a.occurredAt,
    record: a.record,
  };
}
