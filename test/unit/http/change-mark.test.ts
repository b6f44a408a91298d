import { describe, expect, it } from 'vitest';
import { ChangeMarkReader } from '../../../src/http/change-mark.js';

/** A store whose mark the test moves, counting reads and resolving each when told. */
function markSource() {
  const s = {
    value: 1,
    reads: 0,
    pending: [] as (() => void)[],
    manual: false,
    read(): Promise<string> {
      s.reads++;
      const at = String(s.value);
      if (!s.manual) return Promise.resolve(at);
      return new Promise((resolve) => s.pending.push(() => resolve(at)));
    },
  };
  return s;
}

describe('ChangeMarkReader', () => {
  it('serves every check waiting in one turn with one read, started after all of them asked', async () => {
    const src = markSource();
    const marks = new ChangeMarkReader(() => src.read());
    const first = marks.next();
    const second = marks.next();
    // A commit between the checks' arrival and the read is seen by both.
    src.value = 2;
    expect(await Promise.all([first, second])).toEqual(['2', '2']);
    expect(src.reads).toBe(1);
  });

  it('a change committed before a check asks is always seen by it', async () => {
    const src = markSource();
    const marks = new ChangeMarkReader(() => src.read());
    for (let v = 1; v <= 5; v++) {
      src.value = v;
      expect(await marks.next()).toBe(String(v));
    }
    expect(src.reads).toBe(5);
  });

  it('a check that asks while a read is in flight waits for the next read', async () => {
    const src = markSource();
    src.manual = true;
    const marks = new ChangeMarkReader(() => src.read());
    const early = marks.next();
    await new Promise((r) => setImmediate(r));
    expect(src.reads).toBe(1);
    src.value = 7;
    const late = marks.next();
    src.pending.shift()!();
    expect(await early).toBe('1');
    await new Promise((r) => setImmediate(r));
    expect(src.reads).toBe(2);
    src.pending.shift()!();
    expect(await late).toBe('7');
  });

  it('a failed read fails every check that waited for it, and the next check reads again', async () => {
    let fail = true;
    const marks = new ChangeMarkReader(() => {
      if (fail) throw new Error('database is locked');
      return Promise.resolve('9');
    });
    const all = await Promise.allSettled([marks.next(), marks.next()]);
    expect(all.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await marks.next()).toBe('9');
  });
});
