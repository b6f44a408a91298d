/**
 * Decisions let the journal's log state and activity counts wait for the end of their commit
 * batch (batch-end.ts). Whatever a batch goes through (a job that throws before or after its
 * append, the isolated second run, a job that does not let its writes wait and reads the log
 * state mid-batch, a failed write at the batch's end, another connection appending between
 * batches), the file must end byte for byte as if every committed append had written its rows
 * at once, one transaction each.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SvcError } from '../../src/core/errors.js';
import type { JournalAppend } from '../../src/evidence/journal-append.js';
import { CommitQueue } from '../../src/store/sqlite/commit-queue.js';
import { openDatabase, type Db } from '../../src/store/sqlite/database.js';
import { JournalWriter } from '../../src/store/sqlite/journal.js';
import { readLogState } from '../../src/store/sqlite/log-state.js';
import { DAEMON_WAIT } from '../../src/store/sqlite/write-lock.js';
import { tmpDir } from '../helpers/tmp.js';

const TENANTS = ['acme', 'globex'];

/** The n-th append of the test: its tenant, outcome and hour vary so counts group several ways. */
function appendOf(n: number, tenantId = TENANTS[n % 2]!): JournalAppend {
  const outcome = ['allowed', 'refused', 'deferred'][n % 3]!;
  const intentId = `int_${String(n).padStart(4, '0')}`;
  const occurredAt = `2026-11-28T0${n % 2}:00:${String(n % 60).padStart(2, '0')}.000Z`;
  return {
    tenantId,
    kind: 'decision',
    receiptId: `rcp_${String(n).padStart(4, '0')}`,
    taskId: 't1',
    intentId,
    actorId: 'bot',
    capability: 'crm.read',
    tier: 1,
    allowed: outcome === 'allowed',
    grantId: '',
    amountMicros: 1_000_000n,
    occurredAt,
    record: { code: outcome === 'refused' ? 'policy_denied' : null, intent_id: intentId, n, outcome },
  };
}

const LINKED_AT = '2026-11-28T02:00:00.000Z';

function open(path: string): Db {
  const db = openDatabase(path, { lockWait: DAEMON_WAIT });
  for (const t of TENANTS)
    db.prepare('INSERT OR IGNORE INTO tenants (id, created_at) VALUES (?, ?)').run(t, LINKED_AT);
  return db;
}

/** Every row the journal's writer keeps, table by table, in a stable order. */
function journalTables(db: Db): Record<string, unknown[]> {
  return {
    journal: db.prepare('SELECT * FROM journal ORDER BY tenant_id, sequence').all(),
    journal_state: db.prepare('SELECT * FROM journal_state ORDER BY tenant_id').all(),
    journal_activity: db
      .prepare('SELECT * FROM journal_activity ORDER BY tenant_id, hour, kind, outcome, code')
      .all(),
    merkle_nodes: db
      .prepare('SELECT tenant_id, at_size, level, hex(hash) AS hash FROM merkle_nodes ORDER BY 1, 2, 3')
      .all(),
  };
}

describe('the journal rows a batch of decisions writes at its end', () => {
  let dir: ReturnType<typeof tmpDir>;
  let db: Db;
  let reference: Db;
  let queue: CommitQueue;
  let writer: JournalWriter;
  let referenceWriter: JournalWriter;

  beforeEach(() => {
    dir = tmpDir();
    db = open(join(dir.path, 'svc.db'));
    reference = open(join(dir.path, 'reference.db'));
    queue = new CommitQueue(db);
    writer = new JournalWriter(db);
    referenceWriter = new JournalWriter(reference);
  });
  afterEach(() => {
    db.close();
    reference.close();
    dir.cleanup();
  });

  /** What the reference file holds after these appends, each in a transaction of its own. */
  const committed = (...ns: number[]) => {
    for (const n of ns) reference.transaction(() => referenceWriter.append(appendOf(n), LINKED_AT))();
  };
  const deciding = (n: number, opts: { throwAfter?: boolean; throwBefore?: boolean } = {}) =>
    queue.submit(
      () => {
        if (opts.throwBefore) throw new Error(`refused before appending ${n}`);
        const appended = writer.append(appendOf(n), LINKED_AT);
        if (opts.throwAfter) throw new Error(`failed after appending ${n}`);
        return appended.sequence;
      },
      { deferWrites: true },
    );

  it('ends as if each append had written its state and count itself, batch after batch', async () => {
    let n = 0;
    for (let batch = 0; batch < 4; batch++) {
      const ns = Array.from({ length: 7 }, () => n++);
      await Promise.all(ns.map((i) => deciding(i)));
      committed(...ns);
      expect(journalTables(db)).toEqual(journalTables(reference));
    }
    // A new writer on the same file (a restarted daemon) goes on from what was stored.
    const restarted = new JournalWriter(db);
    await queue.submit(() => restarted.append(appendOf(n), LINKED_AT), { deferWrites: true });
    committed(n);
    expect(journalTables(db)).toEqual(journalTables(reference));
  });

  it('keeps a job that throws before appending out, and the batch goes on without a second run', async () => {
    const results = await Promise.allSettled([deciding(0), deciding(1, { throwBefore: true }), deciding(2)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    committed(0, 2);
    expect(journalTables(db)).toEqual(journalTables(reference));
  });

  it('drops what a job that throws after appending left waiting, in the rolled-back run and the isolated one', async () => {
    const results = await Promise.allSettled([
      deciding(0),
      deciding(1),
      deciding(2, { throwAfter: true }),
      deciding(3),
      deciding(4, { throwAfter: true }),
      deciding(5),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    // the survivors' sequences follow one another in each tenant (acme 0; globex 1, 3, 5): no
    // failed append left a gap
    expect(results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))).toEqual([1, 1, 2, 3]);
    committed(0, 1, 3, 5);
    expect(journalTables(db)).toEqual(journalTables(reference));
    // and the batch after it, run without savepoints again, goes on from there
    await Promise.all([deciding(6), deciding(7), deciding(8)]);
    committed(6, 7, 8);
    expect(journalTables(db)).toEqual(journalTables(reference));
  });

  it('writes what waits before a job that does not let its writes wait: it reads the log state as stored', async () => {
    const seen: number[] = [];
    const reading = (n: number) =>
      queue.submit(() => {
        seen.push(readLogState(db, 'acme')?.size ?? 0);
        return writer.append(appendOf(n, 'acme'), LINKED_AT).sequence;
      });
    const results = await Promise.all([
      queue.submit(() => writer.append(appendOf(0, 'acme'), LINKED_AT).sequence, { deferWrites: true }),
      queue.submit(() => writer.append(appendOf(2, 'acme'), LINKED_AT).sequence, { deferWrites: true }),
      reading(4),
      queue.submit(() => writer.append(appendOf(6, 'acme'), LINKED_AT).sequence, { deferWrites: true }),
      reading(8),
    ]);
    expect(results).toEqual([1, 2, 3, 4, 5]);
    expect(seen).toEqual([2, 4]);
    for (const n of [0, 2, 4, 6, 8]) committed(n);
    expect(journalTables(db)).toEqual(journalTables(reference));
  });

  it('does the same in the isolated run, where a job rolls back to its savepoint', async () => {
    const reading = (n: number) =>
      queue.submit(() => {
        const size = readLogState(db, 'acme')?.size ?? 0;
        writer.append(appendOf(n, 'acme'), LINKED_AT);
        return size;
      });
    const results = await Promise.allSettled([
      queue.submit(() => writer.append(appendOf(0, 'acme'), LINKED_AT).sequence, { deferWrites: true }),
      queue.submit(
        () => {
          writer.append(appendOf(2, 'acme'), LINKED_AT);
          throw new Error('after appending');
        },
        { deferWrites: true },
      ),
      reading(4),
      // a job that did not let its writes wait, failing after the rows that waited were
      // written in its savepoint: they go back to waiting, and are written at the end
      queue.submit(() => {
        writer.append(appendOf(5, 'acme'), LINKED_AT);
        throw new Error('after appending, not waiting');
      }),
      queue.submit(() => writer.append(appendOf(6, 'acme'), LINKED_AT).sequence, { deferWrites: true }),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual([
      1,
      'rejected',
      1,
      'rejected',
      3,
    ]);
    committed(0, 4, 6);
    expect(journalTables(db)).toEqual(journalTables(reference));
  });

  it('fails the whole batch when what waits cannot be written, commits none of it, and the next batch is whole', async () => {
    await Promise.all([deciding(0), deciding(1)]);
    committed(0, 1);
    // A write at the batch's end that fails (as a full disk would): the count of a new hour.
    db.exec(`CREATE TEMP TRIGGER refuse_count BEFORE INSERT ON main.journal_activity
             WHEN NEW.hour = '2026-11-28T09' BEGIN SELECT RAISE(ABORT, 'no space left'); END`);
    const late = (n: number) => ({ ...appendOf(n), occurredAt: '2026-11-28T09:00:00.000Z' });
    const results = await Promise.allSettled([
      deciding(2),
      queue.submit(() => writer.append(late(3), LINKED_AT), { deferWrites: true }),
      deciding(4),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of results) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(SvcError);
    expect(journalTables(db)).toEqual(journalTables(reference));
    db.exec('DROP TRIGGER temp.refuse_count');
    await Promise.all([deciding(5), deciding(6), deciding(7)]);
    committed(5, 6, 7);
    expect(journalTables(db)).toEqual(journalTables(reference));
  });

  it('writes nothing that waits once SQLite has ended the transaction itself', async () => {
    await Promise.all([deciding(0), deciding(1)]);
    committed(0, 1);
    // As an I/O error or a full disk does: the transaction is gone mid-batch. Rows that waited
    // must not be written on their own (each would commit alone, ahead of a rolled-back journal).
    const results = await Promise.allSettled([
      deciding(2),
      queue.submit(
        () => {
          db.exec('ROLLBACK');
          throw new Error('the disk is full');
        },
        { deferWrites: true },
      ),
      deciding(4),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(db.inTransaction).toBe(false);
    expect(journalTables(db)).toEqual(journalTables(reference));
    await Promise.all([deciding(5), deciding(6)]);
    committed(5, 6);
    expect(journalTables(db)).toEqual(journalTables(reference));
  });

  it('goes on from what another connection appended between two batches', async () => {
    await Promise.all([deciding(0), deciding(1), deciding(2)]);
    committed(0, 1, 2);
    const other = openDatabase(join(dir.path, 'svc.db'));
    try {
      const otherWriter = new JournalWriter(other);
      other.transaction(() => otherWriter.append(appendOf(3), LINKED_AT))();
      committed(3);
    } finally {
      other.close();
    }
    await Promise.all([deciding(4), deciding(5), deciding(7)]);
    committed(4, 5, 7);
    expect(journalTables(db)).toEqual(journalTables(reference));
  });
});
