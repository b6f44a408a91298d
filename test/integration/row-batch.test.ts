/**
 * Rows decisions add that nothing reads before their commit batch ends (Merkle subtrees,
 * recorded policy inputs) wait for its end and are written several to a statement
 * (row-batch.ts). Through the real commit queue on a real file: what commits is exactly the
 * rows of the jobs that committed, in order, whatever the batch went through.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommitQueue } from '../../src/store/sqlite/commit-queue.js';
import { openDatabase, type Db } from '../../src/store/sqlite/database.js';
import { rowBatchOf, type RowBatch } from '../../src/store/sqlite/row-batch.js';
import { DAEMON_WAIT } from '../../src/store/sqlite/write-lock.js';
import { tmpDir } from '../helpers/tmp.js';

describe('rows that wait for the end of the commit batch', () => {
  let dir: ReturnType<typeof tmpDir>;
  let db: Db;
  let queue: CommitQueue;
  let rows: RowBatch;
  const stored = () => db.prepare('SELECT k, v FROM t ORDER BY rowid').raw().all();
  /** a job that lets its writes wait and adds rows k..k+n-1 */
  const adding = (k: number, n = 1) =>
    queue.submit(
      () => {
        for (let i = k; i < k + n; i++) rows.add([i, `v${i}`]);
        return k;
      },
      { deferWrites: true },
    );

  beforeEach(() => {
    dir = tmpDir();
    db = openDatabase(join(dir.path, 'svc.db'), { lockWait: DAEMON_WAIT });
    db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL); CREATE TABLE other (x INTEGER)');
    queue = new CommitQueue(db);
    rows = rowBatchOf(db, 'INSERT INTO t (k, v)', 2);
  });

  afterEach(() => {
    db.close();
    dir.cleanup();
  });

  it('writes every waiting row at the batch’s end, in order, many statements’ worth', async () => {
    const seen: unknown[] = [];
    const jobs = [adding(0, 100), adding(100, 50), adding(150, 1)];
    // a job in the same batch that lets its writes wait sees none of them written yet
    jobs.push(
      queue.submit(
        () => {
          seen.push(db.prepare('SELECT count(*) FROM t').pluck().get());
          return 0;
        },
        { deferWrites: true },
      ),
    );
    await Promise.all(jobs);
    expect(seen).toEqual([0]);
    expect(stored()).toEqual(Array.from({ length: 151 }, (_, i) => [i, `v${i}`]));
    expect(rowBatchOf(db, 'INSERT INTO t (k, v)', 2)).toBe(rows);
  });

  it('writes them before a job that does not let its writes wait, which reads them as stored', async () => {
    const seen: unknown[] = [];
    await Promise.all([
      adding(0, 3),
      queue.submit(() => seen.push(db.prepare('SELECT count(*) FROM t').pluck().get())),
      adding(3, 2),
    ]);
    expect(seen).toEqual([3]);
    expect(stored()).toHaveLength(5);
  });

  it('drops the rows of a job that throws having changed rows, in the rolled-back run and the isolated one', async () => {
    const failing = queue.submit(
      () => {
        rows.add([10, 'never']);
        db.prepare('INSERT INTO other (x) VALUES (1)').run();
        throw new Error('after its writes');
      },
      { deferWrites: true },
    );
    const results = await Promise.allSettled([adding(0, 2), failing, adding(2, 2)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(stored()).toEqual([
      [0, 'v0'],
      [1, 'v1'],
      [2, 'v2'],
      [3, 'v3'],
    ]);
    expect(db.prepare('SELECT count(*) FROM other').pluck().get()).toBe(0);
  });

  it('writes again what a job that does not let its writes wait flushed in its savepoint before failing', async () => {
    const results = await Promise.allSettled([
      adding(0, 2),
      // changes rows then throws: the batch runs again, isolated
      queue.submit(
        () => {
          db.prepare('INSERT INTO other (x) VALUES (1)').run();
          throw new Error('after its writes');
        },
        { deferWrites: true },
      ),
      // flushes rows 0 and 1 inside its own savepoint, then fails: they must wait again
      queue.submit(() => {
        expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(2);
        throw new Error('read, then failed');
      }),
      adding(2, 1),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(stored()).toEqual([
      [0, 'v0'],
      [1, 'v1'],
      [2, 'v2'],
    ]);
  });

  it('fails the whole batch when a waiting row cannot be written, and the next batch is whole', async () => {
    await adding(0, 1);
    // k = 0 again: the primary key refuses it at the batch's end
    const results = await Promise.allSettled([adding(5, 1), adding(0, 1)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(stored()).toEqual([[0, 'v0']]);
    await adding(1, 1);
    expect(stored()).toEqual([
      [0, 'v0'],
      [1, 'v1'],
    ]);
  });

  it('refuses a row of the wrong width, and a flush with no transaction left; writes one row at once', () => {
    expect(() => rows.add([1])).toThrow(/a row of 1 values for 2 columns/);
    rows.add([1, 'x']);
    expect(() => rows.flush()).toThrow(/no transaction left/);
    rows.discard();
    rows.flush();
    expect(stored()).toEqual([]);
    // one row at once, as a job that does not let its writes wait writes it
    expect(() => rows.writeNow([1, 'x', 'y'])).toThrow(/a row of 3 values for 2 columns/);
    rows.writeNow([2, 'now']);
    expect(stored()).toEqual([[2, 'now']]);
  });
});
