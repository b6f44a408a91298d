import { accessRecord, type AccessJournalInput } from '../../core/records/access-record.js';
import type { AccessReceipt } from '../access-ports.js';
import type { JournalWriter } from './journal.js';

export type { AccessJournalInput, AccessStep } from '../../core/records/access-record.js';

/** Append one access record (built by core) inside the caller's transaction. */
export function appendAccessRecord(journal: JournalWriter, a: AccessJournalInput): AccessReceipt {
  const record = accessRecord(a);
  const appended = journal.append(record, a.at);
  return { receiptId: record.receiptId, sequence: appended.sequence };
}
