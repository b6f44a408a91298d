import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SvcError } from '../../src/core/errors.js';
import { Checkpointer, FALLBACK_AUTOCHECKPOINT_PAGES } from '../../src/store/sqlite/checkpointer.js';
import { CommitQueue } from '../../src/store/sqlite/commit-queue.js';
import { openDatabase, type Db } from '../../src/store/sqlite/database.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { WalSync, type DurableSync } from '../../src/store/sqlite/wal-sync.js';
import { DAEMON_WAIT, writeTransaction } from '../../src/store/sqlite/write-lock.js';
import { fixture } from '../helpers/fixture.js';
import { capability, register } from '../helpers/registry.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The real fsync, held at a gate the test opens: what it shows is the order of events
 * (commit, fsync, answer), which a real fsync alone finishes too fast to observe.
 */
class GatedSync implements DurableSync {
  calls = 0;
  private released = 0;
  /** each held fsync's end, by the number of its call (0 for the first) */
  private held = new Map<number, () => void>();
  failWith: Error | undefined;

  constructor(private readonly real: WalSync) {}

  sync(done: (err: Error | null) => void): void {
    const call = this.calls++;
    this.real.sync((err) => this.held.set(call, () => done(err ?? this.failWith ?? null)));
  }

  /** Let every fsync called so far finish (once the real ones have). */
  async open(): Promise<void> {
    while (this.held.size < this.calls - this.released) await new Promise((r) => setTimeout(r, 2));
    for (const call of [...this.held.keys()].sort((a, b) => a - b)) this.end(call);
  }

  /** Let the fsync of call `call` (0 for the first) finish alone. */
  async openOne(call: number): Promise<void> {
    while (!this.held.has(call)) await new Promise((r) => setTimeout(r, 2));
    this.end(call);
  }

  private end(call: number): void {
    const release = this.held.get(call)!;
    this.held.delete(call);
    this.released++;
    release();
  }
}

const settled = <T>(p: Promise<T>) => {
  const state = { done: false };
  void p.then(
    () => (state.done = true),
    () => (state.done = true),
  );
  return state;
};
const tick = () => new Promise((r) => setTimeout(r, 20));

describe('the commit queue: the fsync off the event loop', () => {
  let dir: ReturnType<typeof tmpDir>;
  let db: Db;
  let wal: WalSync;
  let gate: GatedSync;
  let queue: CommitQueue;
  const insert = (x: number) => () => db.prepare('INSERT INTO t (x) VALUES (?)').run(x).changes;
  const count = () => (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;

  beforeEach(() => {
    dir = tmpDir();
    db = openDatabase(join(dir.path, 'svc.db'), { lockWait: DAEMON_WAIT });
    db.exec('CREATE TABLE t (x INTEGER NOT NULL)');
    wal = WalSync.of(db)!;
    gate = new GatedSync(wal);
    queue = new CommitQueue(db, undefined, gate);
  });

  afterEach(() => {
    wal.close();
    db.close();
    dir.cleanup();
  });

  it('answers a job only after the fsync that covers its commit', async () => {
    const job = queue.submit(insert(1));
    const state = settled(job);
    await tick();
    // Committed (visible to this connection), not yet answered: the fsync is held.
    expect(count()).toBe(1);
    expect(gate.calls).toBe(1);
    expect(state.done).toBe(false);
    const barrier = queue.durable();
    expect(barrier).toBeInstanceOf(Promise);
    await gate.open();
    await expect(job).resolves.toBe(1);
    await barrier;
    expect(queue.durable()).toBeUndefined();
  });

  it('commits the next batch while an fsync runs and syncs it at once; answers follow what each fsync covers', async () => {
    const first = queue.submit(insert(1));
    await tick();
    const second = queue.submit(insert(2));
    const firstState = settled(first);
    const secondState = settled(second);
    await tick();
    expect(count()).toBe(2);
    // The second batch did not wait for the first one's fsync to end; neither is answered.
    expect(gate.calls).toBe(2);
    expect(firstState.done).toBe(false);
    const barrier = queue.durable()!;
    const barrierState = settled(barrier);
    // The first fsync ends: it covers the first batch only.
    await gate.openOne(0);
    await first;
    await tick();
    expect(secondState.done).toBe(false);
    expect(barrierState.done).toBe(false);
    await gate.open();
    await second;
    await barrier;
  });

  it('answers every batch an fsync covers even when it ends before an earlier one', async () => {
    const first = queue.submit(insert(1));
    await tick();
    const second = queue.submit(insert(2));
    await tick();
    expect(gate.calls).toBe(2);
    const firstState = settled(first);
    // The second call covers both batches: once it ends, both are durable.
    await gate.openOne(1);
    await Promise.all([first, second]);
    expect(firstState.done).toBe(true);
    expect(queue.durable()).toBeUndefined();
    // The first call's late end changes nothing.
    await gate.open();
    expect(queue.durable()).toBeUndefined();
  });

  it('keeps at most two fsyncs in flight; later batches share the next one', async () => {
    const jobs = [queue.submit(insert(1))];
    await tick();
    jobs.push(queue.submit(insert(2)));
    await tick();
    jobs.push(queue.submit(insert(3)));
    await tick();
    jobs.push(queue.submit(insert(4)));
    await tick();
    expect(count()).toBe(4);
    expect(gate.calls).toBe(2);
    await gate.openOne(0);
    await tick();
    // One slot freed: the third and fourth batches share one call.
    expect(gate.calls).toBe(3);
    await gate.open();
    await Promise.all(jobs);
    expect(queue.durable()).toBeUndefined();
  });

  it('relaxes the safety level for its own COMMIT only: every other write on the connection stays FULL', async () => {
    const job = queue.submit(insert(1));
    await tick();
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    await writeTransaction(db, () => db.prepare('INSERT INTO t (x) VALUES (9)').run());
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    await gate.open();
    await job;
  });

  it('stops on a failed fsync: its jobs, later jobs and barriers get a 503, nothing is answered as durable', async () => {
    gate.failWith = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    const job = queue.submit(insert(1));
    await tick();
    const barrier = queue.durable()!;
    await gate.open();
    const err = await job.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SvcError);
    expect((err as SvcError).code).toBe('unavailable');
    expect((err as SvcError).message).toMatch(/fsync failed/);
    await expect(barrier).rejects.toThrow(/fsync failed/);
    const later = await queue.submit(insert(2)).catch((e: unknown) => e);
    expect((later as SvcError).code).toBe('unavailable');
    // The later job never ran.
    expect(count()).toBe(1);
    await expect(queue.durable()).rejects.toThrow(/until the daemon restarts/);
  });

  it('syncs the WAL file the connection writes', () => {
    // fdatasync covers the inode's dirty pages whoever wrote them: the descriptor must be
    // the WAL's, and the WAL must be the file SQLite appends to.
    expect(statSync(`${db.name}-wal`).isFile()).toBe(true);
    return new Promise<void>((resolve, reject) => wal.sync((e) => (e ? reject(e) : resolve())));
  });

  it('is absent for a database not in WAL mode', () => {
    const mem = new Database(':memory:');
    try {
      expect(WalSync.of(mem)).toBeNull();
    } finally {
      mem.close();
    }
  });
});

/**
 * The real fsync, both forms, counted: which form the queue chose, and what was committed
 * when it was called. `slowNow` holds each inline fsync that long after the real one, as a
 * slow disk would; `hold` keeps pool fsyncs from ending until `release`.
 */
class CountedSync implements DurableSync {
  called: ('pool' | 'inline')[] = [];
  committedAtCall: number[] = [];
  slowNow = 0;
  failNow: Error | undefined;
  /** while set, pool fsyncs end only when `release` is called */
  hold = false;
  private held: (() => void)[] = [];

  constructor(
    private readonly real: WalSync,
    private readonly committed: () => number,
  ) {}

  sync(done: (err: Error | null) => void): void {
    this.called.push('pool');
    this.committedAtCall.push(this.committed());
    const hold = this.hold;
    this.real.sync((err) => (hold ? this.held.push(() => done(err)) : done(err)));
  }

  async release(calls: number): Promise<void> {
    while (this.held.length < calls) await new Promise((r) => setTimeout(r, 2));
    for (const end of this.held.splice(0)) end();
  }

  syncNow(): void {
    this.called.push('inline');
    this.committedAtCall.push(this.committed());
    this.real.syncNow();
    if (this.slowNow > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, this.slowNow);
    if (this.failNow) throw this.failNow;
  }
}

describe('the commit queue: a lone caller’s fsync on the event loop', () => {
  let dir: ReturnType<typeof tmpDir>;
  let db: Db;
  let wal: WalSync;
  let counted: CountedSync;
  const insert = (x: number) => () => db.prepare('INSERT INTO t (x) VALUES (?)').run(x).changes;
  const count = () => (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
  /** whether the process serves other requests (RequestActivity in the daemon) */
  let quiet: boolean;
  const queueWith = (maxMs: number) =>
    new CommitQueue(db, undefined, counted, null, { quiet: () => quiet, maxMs });

  beforeEach(() => {
    dir = tmpDir();
    db = openDatabase(join(dir.path, 'svc.db'), { lockWait: DAEMON_WAIT });
    db.exec('CREATE TABLE t (x INTEGER NOT NULL)');
    wal = WalSync.of(db)!;
    counted = new CountedSync(wal, count);
    quiet = true;
  });

  afterEach(() => {
    wal.close();
    db.close();
    dir.cleanup();
  });

  it('syncs a job alone on the event loop once an fsync was seen fast, after its commit and before its answer', async () => {
    const queue = queueWith(Number.POSITIVE_INFINITY);
    // How long an fsync takes is unknown at first: the first one goes through the pool.
    await queue.submit(insert(1));
    expect(counted.called).toEqual(['pool']);
    const job = queue.submit(insert(2));
    const state = settled(job);
    await job;
    expect(counted.called).toEqual(['pool', 'inline']);
    // Called with the batch committed; answered with nothing left to make durable.
    expect(counted.committedAtCall).toEqual([1, 2]);
    expect(state.done).toBe(true);
    expect(queue.durable()).toBeUndefined();
  });

  it('sends a batch of several jobs, and a job committed while another fsync runs, through the pool', async () => {
    const queue = queueWith(Number.POSITIVE_INFINITY);
    await queue.submit(insert(1));
    counted.hold = true;
    // Two callers in one turn: one batch of two.
    const pair = [queue.submit(insert(2)), queue.submit(insert(3))];
    await tick();
    // Committed while that fsync is out: its own fsync goes through the pool too.
    const lone = queue.submit(insert(4));
    await tick();
    expect(counted.called).toEqual(['pool', 'pool', 'pool']);
    expect(counted.committedAtCall).toEqual([1, 3, 4]);
    await counted.release(2);
    await Promise.all([...pair, lone]);
    expect(queue.durable()).toBeUndefined();
  });

  it('goes back to the pool after a slow inline fsync, and inline again once one is fast', async () => {
    // Generous bound: a real fsync on any test disk takes far less; the held one far more.
    const queue = queueWith(50);
    await queue.submit(insert(1));
    counted.slowNow = 80;
    await queue.submit(insert(2));
    counted.slowNow = 0;
    await queue.submit(insert(3));
    await queue.submit(insert(4));
    expect(counted.called).toEqual(['pool', 'inline', 'pool', 'inline']);
  });

  it('sends a lone job through the pool while the process serves other requests', async () => {
    const queue = queueWith(Number.POSITIVE_INFINITY);
    await queue.submit(insert(1));
    quiet = false;
    await queue.submit(insert(2));
    quiet = true;
    await queue.submit(insert(3));
    expect(counted.called).toEqual(['pool', 'pool', 'inline']);
  });

  it('never syncs inline without being told when the process is quiet', async () => {
    const queue = new CommitQueue(db, undefined, counted, null);
    for (let x = 1; x <= 3; x++) await queue.submit(insert(x));
    expect(counted.called).toEqual(['pool', 'pool', 'pool']);
  });

  it('never syncs inline while fsyncs take longer than the bound', async () => {
    const queue = queueWith(0);
    for (let x = 1; x <= 3; x++) await queue.submit(insert(x));
    expect(counted.called).toEqual(['pool', 'pool', 'pool']);
  });

  it('stops on a failed inline fsync: the job, later jobs and barriers get a 503', async () => {
    const queue = queueWith(Number.POSITIVE_INFINITY);
    await queue.submit(insert(1));
    counted.failNow = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    const err = await queue.submit(insert(2)).catch((e: unknown) => e);
    expect(counted.called).toEqual(['pool', 'inline']);
    expect((err as SvcError).code).toBe('unavailable');
    expect((err as SvcError).message).toMatch(/fsync failed/);
    await expect(queue.durable()).rejects.toThrow(/until the daemon restarts/);
    const later = await queue.submit(insert(3)).catch((e: unknown) => e);
    expect((later as SvcError).code).toBe('unavailable');
    expect(count()).toBe(2);
  });
});

describe('the commit queue: a job that throws rolls back alone', () => {
  let dir: ReturnType<typeof tmpDir>;
  let db: Db;
  let queue: CommitQueue;
  /** how many times each job's work ran */
  let runs: Map<string, number>;
  const rows = () => (db.prepare('SELECT x FROM t ORDER BY x').all() as { x: number }[]).map((r) => r.x);
  const job = (name: string, work: () => number) => () => {
    runs.set(name, (runs.get(name) ?? 0) + 1);
    return work();
  };
  const insert = (x: number) => db.prepare('INSERT INTO t (x) VALUES (?)').run(x).changes;

  beforeEach(() => {
    dir = tmpDir();
    db = openDatabase(join(dir.path, 'svc.db'), { lockWait: DAEMON_WAIT });
    db.exec('CREATE TABLE t (x INTEGER NOT NULL UNIQUE)');
    queue = new CommitQueue(db);
    runs = new Map();
  });
  afterEach(() => {
    db.close();
    dir.cleanup();
  });

  it('runs the batch again isolated when a job throws having changed rows: its rows never commit', async () => {
    const failure = new Error('after writing');
    const results = await Promise.allSettled([
      queue.submit(job('a', () => insert(1))),
      queue.submit(
        job('b', () => {
          insert(2);
          insert(3);
          throw failure;
        }),
      ),
      queue.submit(job('c', () => insert(4))),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBe(failure);
    expect(rows()).toEqual([1, 4]);
    // a and b ran in the first pass (rolled back), then every job once more, isolated
    expect(Object.fromEntries(runs)).toEqual({ a: 2, b: 2, c: 1 });
    // the batch after it runs without savepoints again: a job that throws before writing
    // costs the others no second run
    runs.clear();
    const next = await Promise.allSettled([
      queue.submit(job('d', () => insert(5))),
      queue.submit(job('e', () => insert(1))), // the UNIQUE constraint: SQLite undoes the statement
      queue.submit(job('f', () => insert(6))),
    ]);
    expect(next.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(rows()).toEqual([1, 4, 5, 6]);
    expect(Object.fromEntries(runs)).toEqual({ d: 1, e: 1, f: 1 });
  });

  it('keeps what a statement changed before another of the same job failed out of the commit', async () => {
    const results = await Promise.allSettled([
      queue.submit(job('a', () => insert(10))),
      // the first insert succeeds, the second breaks the constraint: the job as a whole fails
      queue.submit(job('b', () => insert(11) + insert(10))),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect(rows()).toEqual([10]);
  });

  it('answers a job that throws alone in its batch with its own error, having committed nothing of it', async () => {
    const failure = new Error('alone');
    await expect(
      queue.submit(
        job('a', () => {
          insert(7);
          throw failure;
        }),
      ),
    ).rejects.toBe(failure);
    expect(rows()).toEqual([]);
    await expect(queue.submit(job('b', () => insert(8)))).resolves.toBe(1);
    expect(rows()).toEqual([8]);
  });
});

describe('the checkpointer: WAL checkpoints on a worker thread', () => {
  let dir: ReturnType<typeof tmpDir>;

  beforeEach(() => {
    dir = tmpDir();
  });
  afterEach(() => dir.cleanup());

  it('copies the WAL into the database off the event loop, so the next writer restarts the log', async () => {
    const db = openDatabase(join(dir.path, 'svc.db'), { lockWait: DAEMON_WAIT });
    const checkpointer = new Checkpointer(db);
    try {
      // The committing connection checkpoints itself only as a fallback.
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
      const queue = new CommitQueue(db, undefined, WalSync.of(db), checkpointer);
      db.exec('CREATE TABLE t (x BLOB NOT NULL)');
      const blob = Buffer.alloc(3000, 7);
      for (let i = 0; i < 40; i++) {
        await Promise.all(
          Array.from({ length: 10 }, () =>
            queue.submit(() => db.prepare('INSERT INTO t (x) VALUES (?)').run(blob)),
          ),
        );
      }
      // The next checkpoint to finish may have started before the last commit; the one
      // after it started later, so it covers every frame.
      await checkpointer.next();
      let r = await checkpointer.next();
      // Nothing else reads: a passive checkpoint catches up with every frame.
      expect(r.error).toBeUndefined();
      expect(r.checkpointed).toBe(r.log);
      expect(r.log).toBeGreaterThan(0);
      // A checkpoint still asked for may follow; the log restarts only while none runs.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await queue.submit(() => db.prepare('INSERT INTO t (x) VALUES (?)').run(blob));
      r = await checkpointer.next();
      // Caught up: the last write started the log again from its first frame.
      expect(r.checkpointed).toBe(r.log);
      expect(r.log).toBeLessThan(20);
    } finally {
      await checkpointer.close();
      db.close();
    }
  });

  it('hands checkpoints back to the committing connection when the worker fails', async () => {
    // The worker opens the file by name and must find it: this one is gone.
    const gone = new Database(join(dir.path, 'gone.db'));
    rmSync(join(dir.path, 'gone.db'));
    const checkpointer = new Checkpointer(gone);
    try {
      expect(gone.pragma('wal_autocheckpoint', { simple: true })).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
      const r = await checkpointer.next();
      expect(r.error).toBe('the checkpointer stopped');
      expect(checkpointer.failure).toMatchObject({ code: 'SQLITE_CANTOPEN' });
      expect(gone.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    } finally {
      await checkpointer.close();
      gone.close();
    }
  });

  it('runs for the daemon store and stops with it', async () => {
    const store = SqliteStore.open(join(dir.path, 'svc.db'), { lockWait: DAEMON_WAIT, checkpointer: true });
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
    expect(store.durable()).toBeUndefined();
    await store.close();
    expect(store.db.open).toBe(false);
    // A CLI command's store keeps SQLite's own automatic checkpoint.
    const cli = SqliteStore.open(join(dir.path, 'svc.db'));
    try {
      expect(cli.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    } finally {
      await cli.close();
    }
  });
});

describe('the daemon: replies show only durable state', () => {
  it('holds a read reply until what it may show is durable; a decision answers on its own commit', async () => {
    const f = await fixture();
    try {
      const bot = await f.token('acme', 'bot');
      await register(f.store, 'acme', {
        caps: [capability('acme', 'crm.read')],
        grants: [['bot', 'crm.read']],
        tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n }],
      });
      let release: () => void = () => undefined;
      const pending = new Promise<void>((r) => (release = r));
      // Stands for an fsync still running when the reply is ready.
      const durable = vi.spyOn(f.store, 'durable').mockImplementation(() => pending);
      const decided = await f.app.inject({
        method: 'POST',
        url: '/v1/action',
        headers: { authorization: `Bearer ${bot}` },
        payload: {
          tenant_id: 'acme',
          actor_id: 'bot',
          capability: 'crm.read',
          action: 'read',
          task_id: 't1',
          effect_key_step: 'barrier-1',
        },
      });
      expect(decided.statusCode).toBe(200);
      // The decision's reply came from its commit's own fsync: no barrier.
      expect(durable).not.toHaveBeenCalled();
      const id = (decided.json() as { receipt: { receipt_id: string } }).receipt.receipt_id;
      const read = f.app.inject({
        method: 'GET',
        url: `/v1/receipts/${id}`,
        headers: { authorization: `Bearer ${f.adminToken}` },
      });
      const state = settled(read);
      await tick();
      expect(durable).toHaveBeenCalled();
      expect(state.done).toBe(false);
      release();
      expect((await read).statusCode).toBe(200);
    } finally {
      vi.restoreAllMocks();
      await f.close();
    }
  });
});

describe('the commit queue tells an observer (metrics) of each batch and fsync', () => {
  it('one batch of the jobs queued together, and the fsync that made it durable', async () => {
    const dir = tmpDir();
    const db = openDatabase(join(dir.path, 'svc.db'), { lockWait: DAEMON_WAIT });
    try {
      db.exec('CREATE TABLE t (x INTEGER NOT NULL)');
      const batches: number[] = [];
      const fsyncs: number[] = [];
      const queue = new CommitQueue(db, undefined, WalSync.of(db), null, null, {
        batch: (n) => batches.push(n),
        fsync: (s) => fsyncs.push(s),
        busy: () => undefined,
      });
      const insert = (x: number) => () => db.prepare('INSERT INTO t (x) VALUES (?)').run(x).changes;
      await Promise.all([1, 2, 3, 4, 5].map((x) => queue.submit(insert(x))));
      await queue.submit(insert(6));
      expect(batches).toEqual([5, 1]);
      expect(fsyncs.length).toBeGreaterThanOrEqual(1);
      for (const s of fsyncs) expect(s).toBeGreaterThanOrEqual(0);
    } finally {
      db.close();
      dir.cleanup();
    }
  });
});

describe('the commit queue tells an observer (metrics) of jobs refused as busy', () => {
  it('counts the jobs whose deadline passed while another connection held the write lock', async () => {
    const dir = tmpDir();
    const file = join(dir.path, 'svc.db');
    const db = openDatabase(file, { lockWait: { busyTimeoutMs: 0, deadlineMs: 100 } });
    const other = new Database(file);
    try {
      db.exec('CREATE TABLE t (x INTEGER NOT NULL)');
      let busy = 0;
      const queue = new CommitQueue(db, undefined, WalSync.of(db), null, null, {
        batch: () => undefined,
        fsync: () => undefined,
        busy: (n) => (busy += n),
      });
      other.exec('BEGIN IMMEDIATE');
      const insert = () => db.prepare('INSERT INTO t (x) VALUES (1)').run().changes;
      const results = await Promise.allSettled([queue.submit(insert), queue.submit(insert)]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      expect((results[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'unavailable' });
      expect(busy).toBe(2);
      other.exec('ROLLBACK');
      await queue.submit(insert);
      expect(busy).toBe(2);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      db.close();
      dir.cleanup();
    }
  });
});
