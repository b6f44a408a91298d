import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Capability } from '../../src/core/capability.js';
import type { Task } from '../../src/core/task.js';
import { registryDir, type RegistryDir } from '../helpers/registry-dir.js';

const AT = '2026-06-01T12:00:00.000Z';
const LATER = '2026-06-02T12:00:00.000Z';

function cap(name: string, over: Partial<Capability> = {}): Capability {
  return {
    tenantId: 'acme',
    name,
    tier: 1,
    irreversible: false,
    custody: 'grant',
    actions: ['read'],
    costMicros: 10_000n,
    requestable: false,
    approvers: [],
    owners: [],
    surfaceId: null,
    operation: null,
    createdAt: AT,
    updatedAt: AT,
    ...over,
  };
}

function task(id: string, over: Partial<Task> = {}): Task {
  return {
    tenantId: 'acme',
    id,
    title: null,
    sponsorId: 'bob',
    status: 'active',
    parentId: null,
    rootId: id,
    budgetMicros: 100_000_000n,
    reservedMicros: 0n,
    actors: [],
    createdAt: AT,
    closedAt: null,
    ...over,
  };
}

/** The SQLite adapters of the registration ports, on a real data dir. */
describe('SQLite registry adapters', () => {
  let r: RegistryDir;
  beforeEach(async () => {
    r = await registryDir();
  });
  afterEach(async () => r.close());

  describe('capabilities', () => {
    it('put reports created, unchanged and updated, and bumps the registry version only on a change', async () => {
      const v0 = r.registryVersion();
      expect(await r.store.capabilities.put(cap('crm.contacts'))).toBe('created');
      expect(r.registryVersion()).toBe(v0 + 1);
      expect(await r.store.capabilities.put(cap('crm.contacts', { updatedAt: LATER }))).toBe('unchanged');
      expect(r.registryVersion()).toBe(v0 + 1);
      expect(await r.store.capabilities.put(cap('crm.contacts', { tier: 3, updatedAt: LATER }))).toBe(
        'updated',
      );
      expect(r.registryVersion()).toBe(v0 + 2);
      expect(r.registryVersion('other')).toBe(0);
      const stored = await r.store.capabilities.get('acme', 'crm.contacts');
      expect(stored).toMatchObject({ tier: 3, createdAt: AT, updatedAt: LATER });
    });

    it('round-trips every field, with amounts beyond 2^53 micro-dollars exactly', async () => {
      const big = 10n ** 18n - 1n;
      const full = cap('payments.refund', {
        tier: 9,
        irreversible: true,
        custody: 'brokered',
        actions: ['refund', 'write'],
        costMicros: big,
        requestable: true,
        approvers: ['bob'],
        owners: ['alice', 'bob'],
        surfaceId: 'stripe',
        operation: 'refunds.create',
      });
      await r.store.capabilities.put(full);
      expect(await r.store.capabilities.get('acme', 'payments.refund')).toEqual(full);
      expect(await r.store.capabilities.list('acme')).toEqual([full]);
      expect(await r.store.capabilities.list('other')).toEqual([]);
      expect(await r.store.capabilities.get('other', 'payments.refund')).toBeUndefined();
    });

    it('writes the capability and the version bump in one transaction, or neither', async () => {
      r.store.db.exec(
        `CREATE TEMP TRIGGER no_bump BEFORE UPDATE OF registry_version ON tenants
         BEGIN SELECT RAISE(ABORT, 'bump refused'); END`,
      );
      await expect(r.store.capabilities.put(cap('crm.contacts'))).rejects.toThrow(/bump refused/);
      expect(await r.store.capabilities.get('acme', 'crm.contacts')).toBeUndefined();
      await expect(r.store.policies.set('acme', '', AT)).rejects.toThrow(/bump refused/);
      expect(await r.store.policies.get('acme')).toBeUndefined();
    });

    it('a capability of a tenant that does not exist is not_found', async () => {
      await expect(r.store.capabilities.put(cap('x', { tenantId: 'ghost' }))).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });

  describe('permissions', () => {
    beforeEach(async () => {
      await r.store.capabilities.put(cap('crm.contacts'));
    });

    it('grant is idempotent and keeps the first grant time; revoke says whether there was one', async () => {
      const p = { tenantId: 'acme', actorId: 'bot', capability: 'crm.contacts', grantedAt: AT };
      expect(await r.store.permissions.grant(p)).toBe('created');
      expect(await r.store.permissions.grant({ ...p, grantedAt: LATER })).toBe('unchanged');
      expect(await r.store.permissions.list('acme')).toEqual([p]);
      expect(await r.store.permissions.list('acme', 'bot2')).toEqual([]);
      expect(await r.store.permissions.revoke('acme', 'bot', 'crm.contacts')).toBe(true);
      expect(await r.store.permissions.revoke('acme', 'bot', 'crm.contacts')).toBe(false);
      expect(await r.store.permissions.list('acme')).toEqual([]);
    });

    it('refuses an actor or a capability that is not registered in the tenant', async () => {
      const p = { tenantId: 'acme', actorId: 'ghost', capability: 'crm.contacts', grantedAt: AT };
      await expect(r.store.permissions.grant(p)).rejects.toMatchObject({ code: 'not_found' });
      await expect(
        r.store.permissions.grant({ ...p, actorId: 'bot', capability: 'nope' }),
      ).rejects.toMatchObject({
        code: 'not_found',
      });
      // olga exists, but in tenant other
      await expect(r.store.permissions.grant({ ...p, actorId: 'olga' })).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });

  describe('policies', () => {
    it('each new text is the next version and bumps the registry version; the same text changes nothing', async () => {
      expect(await r.store.policies.get('acme')).toBeUndefined();
      const v0 = r.registryVersion();
      const first = await r.store.policies.set('acme', 'permit (principal, action, resource);', AT);
      expect(first).toEqual({
        tenantId: 'acme',
        version: 1,
        text: 'permit (principal, action, resource);',
        updatedAt: AT,
      });
      expect(r.registryVersion()).toBe(v0 + 1);
      expect(await r.store.policies.set('acme', first.text, LATER)).toEqual(first);
      expect(r.registryVersion()).toBe(v0 + 1);
      const second = await r.store.policies.set('acme', 'forbid (principal, action, resource);', LATER);
      expect(second.version).toBe(2);
      expect(r.registryVersion()).toBe(v0 + 2);
      expect(await r.store.policies.get('acme')).toEqual(second);
      expect(await r.store.policies.get('other')).toBeUndefined();
    });

    it('a policy of a tenant that does not exist is not_found', async () => {
      await expect(r.store.policies.set('ghost', '', AT)).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('tasks', () => {
    it('create and get with assigned agents; a duplicate id is already_exists', async () => {
      const t = task('q3', { title: 'Q3', actors: ['bot2', 'bot'], budgetMicros: 2n ** 60n });
      await r.store.tasks.create(t);
      expect(await r.store.tasks.get('acme', 'q3')).toEqual({ ...t, actors: ['bot', 'bot2'] });
      expect(await r.store.tasks.get('other', 'q3')).toBeUndefined();
      await expect(r.store.tasks.create(task('q3'))).rejects.toMatchObject({ code: 'already_exists' });
    });

    it('refuses a sponsor or agent that is not registered, writing nothing', async () => {
      await expect(r.store.tasks.create(task('t1', { sponsorId: 'ghost' }))).rejects.toMatchObject({
        code: 'not_found',
      });
      await expect(r.store.tasks.create(task('t2', { actors: ['ghost'] }))).rejects.toMatchObject({
        code: 'not_found',
      });
      expect(await r.store.tasks.get('acme', 't2')).toBeUndefined();
    });

    it('lists by id a page at a time, and only the tasks an actor sponsors or works on when asked', async () => {
      for (const id of ['t3', 't1', 't2'])
        await r.store.tasks.create(task(id, { actors: id === 't2' ? ['bot'] : [] }));
      await r.store.tasks.create(task('t4', { sponsorId: 'alice' }));
      const page1 = await r.store.tasks.list('acme', { limit: 2 });
      expect(page1.map((t) => t.id)).toEqual(['t1', 't2']);
      const page2 = await r.store.tasks.list('acme', { limit: 2, after: 't2' });
      expect(page2.map((t) => t.id)).toEqual(['t3', 't4']);
      expect((await r.store.tasks.list('acme', { limit: 10, visibleTo: 'bot' })).map((t) => t.id)).toEqual([
        't2',
      ]);
      expect((await r.store.tasks.list('acme', { limit: 10, visibleTo: 'alice' })).map((t) => t.id)).toEqual([
        't4',
      ]);
      expect(await r.store.tasks.list('other', { limit: 10 })).toEqual([]);
    });

    it('close is final: closing twice, a new budget, new agents and new children are conflicts', async () => {
      await r.store.tasks.create(task('q3'));
      const closed = await r.store.tasks.close('acme', 'q3', LATER);
      expect(closed).toMatchObject({ status: 'closed', closedAt: LATER });
      await expect(r.store.tasks.close('acme', 'q3', LATER)).rejects.toMatchObject({ code: 'conflict' });
      await expect(r.store.tasks.setBudget('acme', 'q3', 1n)).rejects.toMatchObject({ code: 'conflict' });
      await expect(r.store.tasks.assign('acme', 'q3', ['bot'])).rejects.toMatchObject({ code: 'conflict' });
      await expect(
        r.store.tasks.create(task('child', { parentId: 'q3', rootId: 'q3' })),
      ).rejects.toMatchObject({
        code: 'conflict',
        reason: expect.stringMatching(/parent task q3 is closed/),
      });
      await expect(r.store.tasks.close('acme', 'nope', LATER)).rejects.toMatchObject({ code: 'not_found' });
    });

    it('setBudget refuses below the reserved amount and names it exactly, also beyond 2^53 micros', async () => {
      await r.store.tasks.create(task('q3', { budgetMicros: 2n ** 62n }));
      const reserved = 2n ** 53n + 1n; // 9007199254.740993 USD: not representable as a double
      r.store.db.prepare('UPDATE tasks SET reserved_micros = ? WHERE id = ?').run(reserved, 'q3');
      await expect(r.store.tasks.setBudget('acme', 'q3', reserved - 1n)).rejects.toMatchObject({
        code: 'conflict',
        reason: 'task q3 already has 9007199254.740993 USD reserved; its budget cannot be set below that',
      });
      const t = await r.store.tasks.setBudget('acme', 'q3', reserved);
      expect(t).toMatchObject({ budgetMicros: reserved, reservedMicros: reserved });
      await expect(r.store.tasks.setBudget('acme', 'nope', 1n)).rejects.toMatchObject({ code: 'not_found' });
    });

    it('assign adds agents idempotently', async () => {
      await r.store.tasks.create(task('q3', { actors: ['bot'] }));
      expect((await r.store.tasks.assign('acme', 'q3', ['bot', 'bot2'])).actors).toEqual(['bot', 'bot2']);
      expect((await r.store.tasks.assign('acme', 'q3', ['bot2'])).actors).toEqual(['bot', 'bot2']);
      await expect(r.store.tasks.assign('acme', 'q3', ['ghost'])).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });
});
