import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { holdWriteLock, type LockHolder } from '../helpers/lock-holder.js';

/**
 * The delivery loop looks at the outbox every second. An empty outbox is found by a plain
 * read: the look never takes SQLite's write lock, so it never competes with the decisions'
 * commits (nor fails while another process holds the lock).
 */
describe('claiming due deliveries on SQLite', () => {
  let f: Fixture;
  let locker: LockHolder | undefined;
  beforeEach(async () => {
    f = await fixture({ lockWait: { busyTimeoutMs: 0, deadlineMs: 200 } });
  });
  afterEach(async () => {
    await locker?.release();
    locker = undefined;
    await f.close();
  });

  it('finds nothing due without the write lock, while another process holds it', async () => {
    locker = await holdWriteLock(f.dir.database);
    const now = new Date().toISOString();
    const until = new Date(Date.now() + 30_000).toISOString();
    await expect(f.store.notify.claimDue(now, 'loop-a', until, 16)).resolves.toEqual([]);
  });
});
