import { accessRecord, type AccessJournalInput } from '../../core/records/access-record.js';
import type { AccessReceipt } from '../access-ports.js';
import type { PgTx } from './database.js';
import { appendJournal } from './journal.js';

/**
 * Append one access record (built by core) inside the caller's transaction, which holds
 * the tenant's lock (locks.ts) since before it read what the record decides on.
 */
export async function appendAccessRecord(tx: PgTx, a: AccessJournalInput): Promise<AccessReceipt> {
  const record = accessRecord(a);
  const appended = await appendJournal(tx, record, a.at);
  return { receiptId: record.receiptId, sequence: appended.sequence };
}
