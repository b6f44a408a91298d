import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/ports.js';
import type { StoreHarness } from '../harness.js';
import { T0, T1, T2, tenantWith } from './fixtures.js';

const PERMIT = 'permit (principal, action, resource);';
const FORBID = 'forbid (principal, action, resource);\n// é, a non-ASCII byte sequence\n';
/** The hash the history promises, computed independently of svc: SHA-256 of the UTF-8 bytes, hex. */
const hashOf = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

/** PolicyRepo's history: every stored version with who set it, when, why and its hash; append-only. */
export function policyHistoryContract(h: () => StoreHarness): void {
  describe('policy history', () => {
    let s: Store;
    let n = 0;
    beforeAll(async () => {
      s = await h().open();
    });
    const tenant = async () => {
      const id = `ph${++n}`;
      await tenantWith(s, id, []);
      return id;
    };

    it('keeps every version with its text, author, message, time and SHA-256, newest first', async () => {
      const t = await tenant();
      expect(await s.policies.history(t, { limit: 10 })).toEqual([]);
      await s.policies.set(t, PERMIT, T0, { setBy: 'alice', message: 'first' });
      // The same text again is no version: nothing is added to the history either.
      await s.policies.set(t, PERMIT, T1, { setBy: 'bob', message: 'again' });
      await s.policies.set(t, FORBID, T1, { setBy: 'bob', message: null });
      await s.policies.set(t, PERMIT, T2);
      const summary = (
        version: number,
        text: string,
        setBy: string,
        message: string | null,
        setAt: string,
      ) => ({
        tenantId: t,
        version,
        sha256: hashOf(text),
        setBy,
        message,
        setAt,
      });
      expect(await s.policies.history(t, { limit: 10 })).toEqual([
        summary(3, PERMIT, 'unknown', null, T2),
        summary(2, FORBID, 'bob', null, T1),
        summary(1, PERMIT, 'alice', 'first', T0),
      ]);
      expect(await s.policies.version(t, 2)).toEqual({
        ...summary(2, FORBID, 'bob', null, T1),
        text: FORBID,
      });
      expect(await s.policies.version(t, 4)).toBeUndefined();
      expect(await s.policies.version('nobody', 1)).toBeUndefined();
    });

    it('pages back from a version, and keeps tenants apart', async () => {
      const t = await tenant();
      const other = await tenant();
      for (let i = 1; i <= 5; i++) await s.policies.set(t, `// ${i}\n${PERMIT}`, T0);
      await s.policies.set(other, FORBID, T0);
      const versions = async (opts: { limit: number; before?: number }) =>
        (await s.policies.history(t, opts)).map((v) => v.version);
      expect(await versions({ limit: 2 })).toEqual([5, 4]);
      expect(await versions({ limit: 2, before: 4 })).toEqual([3, 2]);
      expect(await versions({ limit: 2, before: 2 })).toEqual([1]);
      expect(await versions({ limit: 2, before: 1 })).toEqual([]);
      expect((await s.policies.history(other, { limit: 10 })).map((v) => v.version)).toEqual([1]);
    });

    it('a version stored from another store on the same database is in the history there', async () => {
      const t = await tenant();
      const second = await h().reopen(s);
      await second.policies.set(t, PERMIT, T0, { setBy: 'carol', message: 'from a replica' });
      expect(await s.policies.version(t, 1)).toMatchObject({ setBy: 'carol', message: 'from a replica' });
    });
  });
}
