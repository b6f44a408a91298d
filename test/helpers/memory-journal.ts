import type { Appended, JournalAppend } from '../../src/evidence/journal-append.js';

/** A journal held in `appended`: the append operation of an in-memory store, receipts numbered from 1. */
export const appendTo =
  (appended: JournalAppend[]) =>
  (record: JournalAppend): Appended => {
    appended.push(record);
    return { sequence: appended.length, receiptId: record.receiptId, recordHash: 'h' };
  };
