import { describe, expect, it } from 'vitest';
import { newTenant, T0, T1, T2, token } from './fixtures.js';
import type { StoreHarness } from '../harness.js';

/** TokenRepo (src/store/ports.ts). */
export function tokenContract(h: () => StoreHarness): void {
  describe('tokens', () => {
    it('stores a token and finds it by id with its secret hash, byte for byte', async () => {
      const store = await h().open();
      await store.tenants.create(newTenant('acme'));
      const t = token('acme', 'alice', 'tok-1', { label: 'ci', secretHash: new Uint8Array(32).fill(0xfe) });
      await store.tokens.insert(t);
      const found = await store.tokens.find('tok-1');
      expect(found).toEqual(t);
      expect(found?.secretHash).toBeInstanceOf(Uint8Array);
      expect(await store.tokens.find('tok-unknown')).toBeUndefined();
    });

    it('refuses a token for an actor that does not exist, and a duplicate id', async () => {
      const store = await h().open();
      await store.tenants.create(newTenant('acme'));
      await expect(store.tokens.insert(token('acme', 'ghost', 'tok-g'))).rejects.toMatchObject({
        code: 'not_found',
      });
      await expect(store.tokens.insert(token('acme', 'alice', 'acme-tok'))).rejects.toMatchObject({
        code: 'already_exists',
      });
    });

    it('lists a tenant’s tokens, or one actor’s, by creation time then id, without secrets', async () => {
      const store = await h().open();
      await store.tenants.create(newTenant('acme'));
      await store.tenants.create(newTenant('other'));
      await store.actors.add({ ...(await store.actors.get('acme', 'alice'))!, id: 'bob' });
      await store.tokens.insert(token('acme', 'bob', 'tok-b', { createdAt: T1 }));
      await store.tokens.insert(token('acme', 'alice', 'tok-a2', { createdAt: T2 }));
      await store.tokens.insert(token('acme', 'alice', 'tok-a1', { createdAt: T2 }));
      const all = await store.tokens.list('acme');
      expect(all.map((t) => t.id)).toEqual(['acme-tok', 'tok-b', 'tok-a1', 'tok-a2']);
      for (const summary of all) expect(summary).not.toHaveProperty('secretHash');
      expect(all[1]).toEqual({
        id: 'tok-b',
        tenantId: 'acme',
        actorId: 'bob',
        label: null,
        createdAt: T1,
        expiresAt: token('acme', 'bob', 'tok-b').expiresAt,
        revokedAt: null,
      });
      expect((await store.tokens.list('acme', 'alice')).map((t) => t.id)).toEqual([
        'acme-tok',
        'tok-a1',
        'tok-a2',
      ]);
      expect(await store.tokens.list('acme', 'nobody')).toEqual([]);
    });

    it('revokes once: the first time stays, another tenant cannot revoke it, an unknown id is false', async () => {
      const store = await h().open();
      await store.tenants.create(newTenant('acme'));
      await store.tenants.create(newTenant('other'));
      expect(await store.tokens.revoke('other', 'acme-tok', T1)).toBe(false);
      expect((await store.tokens.find('acme-tok'))?.revokedAt).toBeNull();
      expect(await store.tokens.revoke('acme', 'acme-tok', T1)).toBe(true);
      expect(await store.tokens.revoke('acme', 'acme-tok', T2)).toBe(true);
      expect((await store.tokens.find('acme-tok'))?.revokedAt).toBe(T1);
      expect(await store.tokens.revoke('acme', 'tok-unknown', T1)).toBe(false);
      expect((await store.tokens.list('acme')).map((t) => t.revokedAt)).toEqual([T1]);
      expect(T0 < T1).toBe(true);
    });
  });
}
