import { afterEach, describe, expect, it } from 'vitest';
import { call, consoleOf, type ConsoleClient } from '../helpers/console.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { holdWriteLock, type LockHolder } from '../helpers/lock-holder.js';

/**
 * The console's session writes while another process (the daemon, committing) holds SQLite's
 * write lock: its connection never sleeps on the lock, so sign-in, sign-out and the idle
 * touch wait on timers and go through once the lock is released; past the deadline they are
 * a coded 503. They were a 500 "internal error" (a bare SQLITE_BUSY), which a browser test
 * under load saw as a page error on Sign out.
 */
describe('console sessions while another process holds the write lock', () => {
  let f: Fixture;
  let c: ConsoleClient;
  let locker: LockHolder | undefined;

  afterEach(async () => {
    if (locker?.holding()) await locker.release();
    locker = undefined;
    await f.close();
  });

  const signIn = () =>
    c.app.inject({
      method: 'POST',
      url: '/api/session',
      headers: { authorization: `Bearer ${f.adminToken}` },
      payload: {},
    });
  /** Settles with the response, recording whether it came while the lock was still held. */
  const track = <T>(p: Promise<T>) => {
    const state = { settled: false };
    const done = p.finally(() => {
      state.settled = true;
    });
    return { state, done };
  };
  const waitAWhile = () => new Promise((r) => setTimeout(r, 150));

  it('signs in and out once the lock is released, instead of answering 500', async () => {
    f = await fixture();
    c = await consoleOf(f);
    const s = await c.signIn(f.adminToken);
    locker = await holdWriteLock(f.dir.database);
    const out = track(call(c, s, '/api/session/sign-out', { method: 'POST', body: {} }));
    const into = track(signIn());
    await waitAWhile();
    expect([out.state.settled, into.state.settled]).toEqual([false, false]);
    await locker.release();
    const [o, i] = [await out.done, await into.done];
    expect(o).toMatchObject({ status: 200, body: { signed_out: true } });
    expect(i.statusCode).toBe(200);
    // The sign-out was written: the old cookie is worthless; the new session works.
    expect((await call(c, s, '/api/session')).status).toBe(401);
    const fresh = String(i.headers['set-cookie']).split(';')[0] as string;
    const me = await c.app.inject({ method: 'GET', url: '/api/session', headers: { cookie: fresh } });
    expect(me.statusCode).toBe(200);
  });

  it('writes the idle touch of a session once the lock is released', async () => {
    f = await fixture();
    c = await consoleOf(f);
    const s = await c.signIn(f.adminToken);
    // Past the touch interval: this read writes the session's last use.
    f.now.value = new Date(f.now.value.getTime() + 5 * 60_000);
    locker = await holdWriteLock(f.dir.database);
    const read = track(call(c, s, '/api/session'));
    await waitAWhile();
    expect(read.state.settled).toBe(false);
    await locker.release();
    expect((await read.done).status).toBe(200);
  });

  it('past the deadline answers a coded 503 with nothing written, and the session still works', async () => {
    f = await fixture();
    c = await consoleOf(f);
    const s = await c.signIn(f.adminToken);
    locker = await holdWriteLock(f.dir.database);
    const r = await call(c, s, '/api/session/sign-out', { method: 'POST', body: {} });
    expect(locker.holding()).toBe(true);
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({
      code: 'unavailable',
      reason: expect.stringMatching(/store is busy.*nothing was committed/),
    });
    await locker.release();
    expect((await call(c, s, '/api/session')).status).toBe(200);
  });
});
