import { describe, expect, it } from 'vitest';
import { human, newTenant, T0, T1, T2 } from './fixtures.js';
import type { StoreHarness } from '../harness.js';

/** TenantRepo, ActorRepo and SigningKeyRepo (src/store/ports.ts). */
export function identityContract(h: () => StoreHarness): void {
  describe('tenants', () => {
    it('creates a tenant with its key, administrator and token, and lists tenants by id', async () => {
      const store = await h().open();
      await store.tenants.create(newTenant('acme'));
      await store.tenants.create({ tenant: { id: 'Zeta', createdAt: T1 }, signingKey: key('Zeta', 'z1') });
      expect(await store.tenants.get('acme')).toEqual({ id: 'acme', createdAt: T0 });
      expect(await store.tenants.get('nobody')).toBeUndefined();
      // byte order, as SQLite compares text: upper case before lower case
      expect((await store.tenants.list()).map((t) => t.id)).toEqual(['Zeta', 'acme']);
      expect((await store.keys.active('acme'))?.keyId).toBe('acme-k1');
      expect((await store.actors.get('acme', 'alice'))?.roles).toEqual(['administrator']);
      expect((await store.tokens.find('acme-tok'))?.actorId).toBe('alice');
      // A tenant without an administrator is fine (the admin and token are optional).
      expect(await store.actors.list('Zeta')).toEqual([]);
    });

    it("reads a tenant's approval tier: 3 for a new tenant, nothing for a tenant that does not exist", async () => {
      const store = await h().open();
      await store.tenants.create(newTenant('acme'));
      expect(await store.tenants.approvalTier('acme')).toBe(3);
      expect(await store.tenants.approvalTier('nobody')).toBeUndefined();
    });

    it('creates all or nothing: a second tenant of the same id changes nothing', async () => {
      const store = await h().open();
      await store.tenants.create(newTenant('acme'));
      await expect(
        store.tenants.create(newTenant('acme', { admin: 'bob', keyId: 'other' })),
      ).rejects.toMatchObject({
        code: 'already_exists',
      });
      expect(await store.actors.get('acme', 'bob')).toBeUndefined();
      expect((await store.keys.list('acme')).map((k) => k.keyId)).toEqual(['acme-k1']);
    });

    it('creates all or nothing: a token for an actor that does not exist leaves no tenant', async () => {
      const store = await h().open();
      const input = newTenant('acme');
      const broken = { ...input, adminToken: { ...input.adminToken!, actorId: 'ghost' } };
      await expect(store.tenants.create(broken)).rejects.toMatchObject({ code: 'not_found' });
      expect(await store.tenants.get('acme')).toBeUndefined();
      expect(await store.keys.active('acme')).toBeUndefined();
    });
  });

  describe('actors', () => {
    it('adds and reads actors with every field, listed by id', async () => {
      const store = await h().open();
      await store.tenants.create(newTenant('acme'));
      const bot = human('acme', 'Bot', {
        kind: 'agent',
        roles: [],
        managerId: 'alice',
        displayName: 'The bot',
        certSubject: 'CN=bot\nO=acme',
        createdAt: T1,
      });
      const carol = human('acme', 'carol', {
        roles: ['approver', 'manager'],
        chatUserId: 'U123',
        collabUserId: 'oid-9',
      });
      await store.actors.add(bot);
      await store.actors.add(carol);
      expect(await store.actors.get('acme', 'Bot')).toEqual(bot);
      expect(await store.actors.get('acme', 'carol')).toEqual(carol);
      expect(await store.actors.get('acme', 'nobody')).toBeUndefined();
      expect(await store.actors.get('other', 'carol')).toBeUndefined();
      expect((await store.actors.list('acme')).map((a) => a.id)).toEqual(['Bot', 'alice', 'carol']);
      expect(await store.actors.findByCertSubject('CN=bot\nO=acme')).toEqual(bot);
      expect(await store.actors.findByCertSubject('CN=nobody')).toBeUndefined();
    });

    it('refuses duplicates, naming what collided', async () => {
      const store = await h().open();
      await store.tenants.create(newTenant('acme'));
      await store.actors.add(
        human('acme', 'carol', { chatUserId: 'U1', collabUserId: 'C1', certSubject: 'CN=carol' }),
      );
      await expect(store.actors.add(human('acme', 'carol'))).rejects.toMatchObject({
        code: 'already_exists',
        reason: 'actor carol in tenant acme already exists',
      });
      await expect(store.actors.add(human('acme', 'dave', { chatUserId: 'U1' }))).rejects.toMatchObject({
        code: 'already_exists',
        reason: 'an actor with chat user id U1 in tenant acme already exists',
      });
      await expect(store.actors.add(human('acme', 'erin', { collabUserId: 'C1' }))).rejects.toMatchObject({
        code: 'already_exists',
        reason: 'an actor with collaboration user id C1 in tenant acme already exists',
      });
      await expect(store.actors.add(human('acme', 'fay', { certSubject: 'CN=carol' }))).rejects.toMatchObject(
        {
          code: 'already_exists',
          reason: 'an actor with id fay or certificate subject CN=carol already exists',
        },
      );
      expect((await store.actors.list('acme')).map((a) => a.id)).toEqual(['alice', 'carol']);
    });

    it('refuses an actor of a tenant that does not exist', async () => {
      const store = await h().open();
      await expect(store.actors.add(human('ghost', 'carol'))).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('signing keys', () => {
    it('rotates: the active key retires at the new key’s time, in one step', async () => {
      const store = await h().open();
      await store.tenants.create(newTenant('acme'));
      const next = await store.keys.rotate(key('acme', 'acme-k2', T2));
      expect(next).toMatchObject({ keyId: 'acme-k2', status: 'active', retiredAt: null });
      expect(await store.keys.active('acme')).toEqual(next);
      expect(await store.keys.list('acme')).toEqual([
        { ...key('acme', 'acme-k1', T0), status: 'retired', retiredAt: T2 },
        { ...key('acme', 'acme-k2', T2), status: 'active', retiredAt: null },
      ]);
    });

    it('refuses a rotation without an active key, or to a key id in use, and keeps the active key', async () => {
      const store = await h().open();
      await expect(store.keys.rotate(key('ghost', 'g2'))).rejects.toMatchObject({ code: 'not_found' });
      await store.tenants.create(newTenant('acme'));
      await expect(store.keys.rotate(key('acme', 'acme-k1', T1))).rejects.toMatchObject({
        code: 'already_exists',
      });
      expect(await store.keys.active('acme')).toMatchObject({
        keyId: 'acme-k1',
        status: 'active',
        retiredAt: null,
      });
      expect(await store.keys.list('acme')).toHaveLength(1);
    });

    it('keeps exactly one active key under concurrent rotations from two stores', async () => {
      const first = await h().open();
      const second = await h().reopen(first);
      await first.tenants.create(newTenant('acme'));
      const results = await Promise.allSettled([
        first.keys.rotate(key('acme', 'acme-a', T1)),
        second.keys.rotate(key('acme', 'acme-b', T2)),
      ]);
      const keys = await first.keys.list('acme');
      expect(keys.filter((k) => k.status === 'active')).toHaveLength(1);
      // every rotation that succeeded retired exactly one key: none is lost, none doubled
      const succeeded = results.filter((r) => r.status === 'fulfilled').length;
      expect(keys).toHaveLength(1 + succeeded);
      expect(keys.filter((k) => k.status === 'retired')).toHaveLength(succeeded);
    });

    it('pings an open store', async () => {
      const store = await h().open();
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}

function key(tenantId: string, keyId: string, createdAt = T0) {
  return { tenantId, keyId, publicKey: 'cHVibGlj', algorithm: 'ed25519' as const, createdAt };
}
