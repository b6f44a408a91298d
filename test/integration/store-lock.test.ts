import { afterEach, describe, expect, it } from 'vitest';
import type { LockWait } from '../../src/store/sqlite/write-lock.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { holdWriteLock, type LockHolder } from '../helpers/lock-holder.js';
import { capability, register } from '../helpers/registry.js';

/**
 * Issue 10 item 11: while another process holds SQLite's write lock, the daemon's event loop
 * keeps running (health answers), writes wait on timers, and past the deadline a write is a
 * prompt 503 with nothing written.
 */
describe('the daemon while another process holds the write lock', () => {
  let f: Fixture;
  let locker: LockHolder | undefined;
  let bot: string;

  const setup = async (lockWait: LockWait) => {
    f = await fixture({ lockWait });
    bot = await f.token('acme', 'bot');
    await register(f.store, 'acme', {
      caps: [
        capability('acme', 'crm.read'),
        capability('acme', 'crm.write', { actions: ['write'], requestable: true }),
      ],
      grants: [['bot', 'crm.read']],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n }],
    });
  };
  const action = (step: string) =>
    f.app.inject({
      method: 'POST',
      url: '/v1/action',
      headers: { authorization: `Bearer ${bot}` },
      payload: {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'crm.read',
        action: 'read',
        task_id: 't1',
        effect_key_step: step,
      },
    });
  /** Everything a write could have touched. */
  const snapshot = () =>
    f.store.db
      .prepare(
        `SELECT (SELECT count(*) FROM journal) AS journal, (SELECT count(*) FROM intents) AS intents,
           (SELECT count(*) FROM effect_keys) AS keys, (SELECT count(*) FROM access_requests) AS requests,
           (SELECT reserved_micros FROM tasks WHERE tenant_id = 'acme' AND id = 't1') AS reserved`,
      )
      .get();
  /** Settles with the response, recording whether it came while `pending` was still unsettled. */
  const track = <T>(p: Promise<T>) => {
    const state = { settled: false };
    const done = p.finally(() => {
      state.settled = true;
    });
    return { state, done };
  };

  afterEach(async () => {
    if (locker?.holding()) await locker.release();
    locker = undefined;
    await f.close();
  });

  it('answers /healthz while a decision waits for the lock; the decision commits once it is released', async () => {
    await setup({ busyTimeoutMs: 0, deadlineMs: 20_000 });
    const before = snapshot() as { journal: number };
    locker = await holdWriteLock(f.dir.database);
    const decision = track(action('lock-1'));
    // Let the decision reach the commit queue and find the lock taken.
    await new Promise((r) => setTimeout(r, 150));
    const health = await f.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    // Answered while the other process still held the lock and the decision still waited.
    expect(locker.holding()).toBe(true);
    expect(decision.state.settled).toBe(false);
    await locker.release();
    const r = await decision.done;
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ decision: 'allowed' });
    expect((snapshot() as { journal: number }).journal).toBe(before.journal + 1);
  });

  it('past the deadline answers 503 with a reason and remedy, and writes nothing', async () => {
    await setup({ busyTimeoutMs: 0, deadlineMs: 300 });
    const before = snapshot();
    locker = await holdWriteLock(f.dir.database);
    const decision = track(action('lock-2'));
    const access = track(
      f.app.inject({
        method: 'POST',
        url: '/v1/access-requests',
        headers: { authorization: `Bearer ${bot}` },
        payload: { capability: 'crm.write', reason: 'needs it', duration_seconds: 3600 },
      }),
    );
    const health = await f.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(decision.state.settled).toBe(false);
    for (const r of [await decision.done, await access.done]) {
      expect(r.statusCode).toBe(503);
      expect(r.json()).toMatchObject({
        code: 'unavailable',
        reason: expect.stringMatching(/store is busy.*nothing was committed/),
        remedy: expect.stringMatching(/retry with the same body and effect key/),
      });
    }
    expect(locker.holding()).toBe(true);
    expect(snapshot()).toEqual(before);
    await locker.release();
    // Nothing was claimed: the same effect key goes through now.
    const again = await action('lock-2');
    expect(again.statusCode).toBe(200);
  });
});
