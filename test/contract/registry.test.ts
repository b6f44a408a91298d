import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/core/actor.js';
import type { Capability } from '../../src/core/capability.js';
import type { Task } from '../../src/core/task.js';
import type { Theme } from '../../src/core/theme/theme.js';
import { REGISTRY_ADAPTERS, type RegistryUnderTest } from './registry-adapters.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const T2 = '2026-01-03T00:00:00.000Z';

function actor(tenantId: string, id: string, kind: Actor['kind'], roles: Actor['roles'] = []): Actor {
  return {
    tenantId,
    id,
    kind,
    roles,
    managerId: null,
    certSubject: null,
    displayName: null,
    createdAt: T0,
  };
}

function capability(tenantId: string, name: string, o: Partial<Capability> = {}): Capability {
  return {
    tenantId,
    name,
    tier: 1,
    irreversible: false,
    custody: 'grant',
    actions: ['read'],
    costMicros: 1_000_000n,
    requestable: false,
    approvers: [],
    owners: [],
    surfaceId: null,
    operation: null,
    createdAt: T0,
    updatedAt: T0,
    ...o,
  };
}

function task(tenantId: string, id: string, o: Partial<Task> = {}): Task {
  return {
    tenantId,
    id,
    title: null,
    sponsorId: 'sponsor',
    status: 'draft',
    parentId: null,
    rootId: id,
    budgetMicros: 10_000_000n,
    reservedMicros: 0n,
    actors: [],
    createdAt: T0,
    closedAt: null,
    ...o,
  };
}

/** What a rejected promise was, so both adapters' errors compare by code. */
async function failure(p: Promise<unknown>): Promise<{ code?: string; kind?: string }> {
  return p.then(
    () => ({}),
    (err: unknown) => err as { code?: string },
  );
}

describe.each(REGISTRY_ADAPTERS)('registry ports on %s', (_name, open, skip) => {
  if (skip) {
    it.skip(`skipped: ${skip}`, () => undefined);
    return;
  }
  let s: RegistryUnderTest;
  let n = 0;
  beforeAll(async () => {
    s = await open();
  });
  afterAll(async () => {
    await s?.close();
  });

  /** A fresh tenant per case with an operator, a human sponsor and three agents. */
  async function tenant(): Promise<{ id: string; op: Actor; sponsor: Actor; agent: Actor; other: Actor }> {
    const id = `t${++n}`;
    await s.exec('INSERT INTO tenants (id, created_at) VALUES (?, ?)', [id, T0]);
    const people = {
      op: actor(id, 'op', 'human', ['operator']),
      sponsor: actor(id, 'sponsor', 'human'),
      agent: actor(id, 'agent-1', 'agent'),
      other: actor(id, 'Agent-Z', 'agent'),
    };
    for (const a of [...Object.values(people), actor(id, 'agent-2', 'agent')]) {
      await s.exec('INSERT INTO actors (tenant_id, id, kind, roles, created_at) VALUES (?, ?, ?, ?, ?)', [
        a.tenantId,
        a.id,
        a.kind,
        JSON.stringify(a.roles),
        T0,
      ]);
    }
    return { id, ...people };
  }

  const registryVersion = (tenantId: string) =>
    s.scalar('SELECT registry_version FROM tenants WHERE id = ?', [tenantId]);

  it('capabilities: created, unchanged, updated; the registry version moves only on a change', async () => {
    const t = await tenant();
    const big = 2n ** 60n;
    expect(await s.capabilities.put(capability(t.id, 'pay', { costMicros: big }))).toBe('created');
    expect(await registryVersion(t.id)).toBe(1);
    // Only the timestamps differ: nothing to change.
    expect(await s.capabilities.put(capability(t.id, 'pay', { costMicros: big, updatedAt: T1 }))).toBe(
      'unchanged',
    );
    expect(await registryVersion(t.id)).toBe(1);
    expect(
      await s.capabilities.put(capability(t.id, 'pay', { costMicros: big, tier: 7, updatedAt: T1 })),
    ).toBe('updated');
    expect(await registryVersion(t.id)).toBe(2);
    expect(await s.capabilities.get(t.id, 'pay')).toEqual(
      capability(t.id, 'pay', { costMicros: big, tier: 7, updatedAt: T1 }),
    );
    expect(await s.capabilities.get(t.id, 'nope')).toBeUndefined();
  });

  it('capabilities and themes: concurrent writers take turns, one wins and none errs', async () => {
    const t = await tenant();
    const puts = await Promise.all(
      Array.from({ length: 8 }, () => s.capabilities.put(capability(t.id, 'race'))),
    );
    expect(puts.filter((r) => r === 'created')).toHaveLength(1);
    expect(puts.filter((r) => r === 'unchanged')).toHaveLength(7);
    expect(await registryVersion(t.id)).toBe(1);
    const theme = { name: 'x' } as unknown as Theme;
    const saves = await Promise.allSettled(
      Array.from({ length: 6 }, () =>
        s.themes.save({ tenantId: t.id, theme, source: 'editor', createdBy: 'op', at: T1, expected: 0 }),
      ),
    );
    expect(saves.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of saves) {
      if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'stale_revision' });
    }
    expect((await s.themes.current(t.id))?.revision).toBe(1);
  });

  it('capabilities: listed in byte order of the name, like SQLite', async () => {
    const t = await tenant();
    for (const name of ['b', 'a_b', 'Z', 'a.b', 'a', 'ab']) {
      await s.capabilities.put(capability(t.id, name, { irreversible: name === 'Z', requestable: true }));
    }
    const list = await s.capabilities.list(t.id);
    expect(list.map((c) => c.name)).toEqual(['Z', 'a', 'a.b', 'a_b', 'ab', 'b']);
    expect(list[0]).toMatchObject({ irreversible: true, requestable: true });
    expect(await s.capabilities.list('no-such-tenant')).toEqual([]);
  });

  it('permissions: a second grant keeps the first time; revoke says whether there was one', async () => {
    const t = await tenant();
    await s.capabilities.put(capability(t.id, 'read'));
    await s.capabilities.put(capability(t.id, 'write'));
    const p = { tenantId: t.id, actorId: 'agent-1', capability: 'write', grantedAt: T0 };
    expect(await s.permissions.grant(p)).toBe('created');
    expect(await s.permissions.grant({ ...p, grantedAt: T1 })).toBe('unchanged');
    await s.permissions.grant({ ...p, capability: 'read' });
    await s.permissions.grant({ ...p, actorId: 'Agent-Z' });
    expect(await s.permissions.list(t.id)).toEqual([
      { ...p, actorId: 'Agent-Z' },
      { ...p, capability: 'read' },
      p,
    ]);
    expect(await s.permissions.list(t.id, 'agent-1')).toHaveLength(2);
    expect(await failure(s.permissions.grant({ ...p, capability: 'missing' }))).toMatchObject({
      code: 'not_found',
    });
    expect(await s.permissions.revoke(t.id, 'agent-1', 'write')).toBe(true);
    expect(await s.permissions.revoke(t.id, 'agent-1', 'write')).toBe(false);
  });

  it('policies: a new text is the next version and bumps the registry; the same text changes nothing', async () => {
    const t = await tenant();
    expect(await s.policies.get(t.id)).toBeUndefined();
    expect(await s.policies.set(t.id, 'permit(principal, action, resource);', T0)).toEqual({
      tenantId: t.id,
      version: 1,
      text: 'permit(principal, action, resource);',
      updatedAt: T0,
    });
    const before = await registryVersion(t.id);
    expect(await s.policies.set(t.id, 'permit(principal, action, resource);', T1)).toMatchObject({
      version: 1,
      updatedAt: T0,
    });
    expect(await registryVersion(t.id)).toBe(before);
    expect(await s.policies.set(t.id, 'forbid(principal, action, resource);', T2)).toMatchObject({
      version: 2,
    });
    expect(await registryVersion(t.id)).toBe(before + 1);
    expect((await s.policies.get(t.id))?.version).toBe(2);
  });

  it('tasks: create, page by id, visible to sponsor and assigned agents, assign is idempotent', async () => {
    const t = await tenant();
    await s.tasks.create(task(t.id, 'b-task', { actors: ['agent-2', 'agent-1'], budgetMicros: 2n ** 62n }));
    await s.tasks.create(task(t.id, 'B-task'));
    await s.tasks.create(task(t.id, 'a-task', { sponsorId: 'op' }));
    expect(await s.tasks.get(t.id, 'b-task')).toEqual(
      task(t.id, 'b-task', { actors: ['agent-1', 'agent-2'], budgetMicros: 2n ** 62n }),
    );
    expect((await s.tasks.list(t.id, { limit: 10 })).map((x) => x.id)).toEqual([
      'B-task',
      'a-task',
      'b-task',
    ]);
    expect((await s.tasks.list(t.id, { limit: 1, after: 'B-task' })).map((x) => x.id)).toEqual(['a-task']);
    expect((await s.tasks.list(t.id, { limit: 10, visibleTo: 'agent-1' })).map((x) => x.id)).toEqual([
      'b-task',
    ]);
    expect((await s.tasks.list(t.id, { limit: 10, visibleTo: 'sponsor' })).map((x) => x.id)).toEqual([
      'B-task',
      'b-task',
    ]);
    const assigned = await s.tasks.assign(t.id, 'B-task', ['agent-1', 'agent-1', 'Agent-Z']);
    expect(assigned.actors).toEqual(['Agent-Z', 'agent-1']);
    expect((await s.tasks.assign(t.id, 'B-task', ['agent-1'])).actors).toEqual(['Agent-Z', 'agent-1']);
    expect(await failure(s.tasks.create(task(t.id, 'a-task')))).toMatchObject({ code: 'already_exists' });
    expect(await failure(s.tasks.assign(t.id, 'B-task', ['ghost']))).toMatchObject({ code: 'not_found' });
    expect(await failure(s.tasks.assign(t.id, 'none', ['agent-1']))).toMatchObject({ code: 'not_found' });
  });

  it('tasks: closing is final; a budget never goes below what is reserved', async () => {
    const t = await tenant();
    await s.tasks.create(task(t.id, 'root'));
    await s.exec('UPDATE tasks SET reserved_micros = ? WHERE tenant_id = ? AND id = ?', [
      5_000_000,
      t.id,
      'root',
    ]);
    expect(await failure(s.tasks.setBudget(t.id, 'root', 4_999_999n))).toMatchObject({
      code: 'conflict',
      field: 'set',
    });
    expect((await s.tasks.setBudget(t.id, 'root', 5_000_000n)).budgetMicros).toBe(5_000_000n);
    const closed = await s.tasks.close(t.id, 'root', T1);
    expect(closed).toMatchObject({ status: 'closed', closedAt: T1 });
    expect(await failure(s.tasks.close(t.id, 'root', T2))).toMatchObject({ code: 'conflict' });
    expect(await failure(s.tasks.setBudget(t.id, 'root', 9n))).toMatchObject({ code: 'conflict' });
    expect(
      await failure(s.tasks.create(task(t.id, 'child', { parentId: 'root', rootId: 'root' }))),
    ).toMatchObject({ code: 'conflict' });
    expect(
      await failure(s.tasks.create(task(t.id, 'orphan', { parentId: 'gone', rootId: 'gone' }))),
    ).toMatchObject({ code: 'not_found' });
    expect(await s.tasks.get(t.id, 'child')).toBeUndefined();
  });

  it('task reads: the viewer sees what readers.ts allows, filtered and paged', async () => {
    const t = await tenant();
    await s.tasks.create(task(t.id, 'one', { actors: ['agent-1'] }));
    await s.tasks.create(task(t.id, 'two'));
    await s.tasks.create(task(t.id, 'three', { status: 'active' }));
    const page = await s.taskReads.list(t.op, { limit: 2 }, {});
    expect(page.items.map((x) => x.id)).toEqual(['one', 'three']);
    expect(page.next).toBe('three');
    const rest = await s.taskReads.list(t.op, { limit: 2, after: page.next }, {});
    expect(rest).toMatchObject({ items: [{ id: 'two', constraintsInstalled: false }], next: undefined });
    expect(
      (await s.taskReads.list(t.op, { limit: 10 }, { status: 'active' })).items.map((x) => x.id),
    ).toEqual(['three']);
    expect((await s.taskReads.list(t.agent, { limit: 10 }, {})).items.map((x) => x.id)).toEqual(['one']);
    expect(await s.taskReads.get(t.agent, 'two')).toBeUndefined();
    expect(await s.taskReads.get(t.agent, 'one')).toMatchObject({ id: 'one', actors: ['agent-1'] });
  });

  it('constraints: only the human sponsor installs, once, on an unused draft root; the ledger by viewer', async () => {
    const t = await tenant();
    await s.capabilities.put(capability(t.id, 'pay'));
    await s.tasks.create(task(t.id, 'root', { actors: ['agent-1'] }));
    await s.tasks.create(task(t.id, 'child', { parentId: 'root', rootId: 'root' }));
    const plan = { capabilities: ['pay'], actors: ['agent-1'], max_total_usd: 5 };
    expect(await failure(s.constraints.install(t.op, 'root', plan, new Date(T1)))).toMatchObject({
      code: 'not_sponsor',
    });
    expect(await failure(s.constraints.install(t.sponsor, 'child', plan, new Date(T1)))).toMatchObject({
      code: 'not_root',
    });
    expect(
      await failure(
        s.constraints.install(t.sponsor, 'root', { capabilities: ['pay', 'typo'] }, new Date(T1)),
      ),
    ).toMatchObject({ code: 'invalid_request', field: 'capabilities.1' });
    expect(await failure(s.constraints.install(t.sponsor, 'nothing', plan, new Date(T1)))).toMatchObject({
      code: 'not_found',
    });
    const installed = await s.constraints.install(t.sponsor, 'root', plan, new Date(T1));
    expect(installed).toEqual({
      taskId: 'root',
      rootId: 'root',
      rootSponsorId: 'sponsor',
      plan,
      installedAt: T1,
      installedBy: 'sponsor',
      ledger: { visibility: 'full', admissions: [], count: 0, totalMicros: 0n },
    });
    expect(await failure(s.constraints.install(t.sponsor, 'root', plan, new Date(T2)))).toMatchObject({
      code: 'constraints_installed',
    });
    expect((await s.tasks.get(t.id, 'root'))?.status).toBe('active');
    for (const [id, who, at] of [
      ['r2', 'agent-2', T2],
      ['r1', 'agent-1', T1],
      ['r3', 'agent-1', T2],
    ] as const) {
      await s.exec(
        `INSERT INTO admissions (tenant_id, id, root_id, task_id, intent_id, actor_id, capability, amount_micros, created_at)
         VALUES (?, ?, 'root', 'child', ?, ?, 'pay', ?, ?)`,
        [t.id, id, `i-${id}`, who, 2n ** 55n, at],
      );
    }
    const full = await s.constraints.profile(t.sponsor, 'child');
    expect(full?.ledger).toMatchObject({ visibility: 'full', count: 3, totalMicros: 3n * 2n ** 55n });
    expect(full?.ledger.visibility === 'full' && full.ledger.admissions.map((a) => a.id)).toEqual([
      'r1',
      'r2',
      'r3',
    ]);
    expect((await s.constraints.profile(t.agent, 'root'))?.ledger).toEqual({
      visibility: 'own',
      reservationIds: ['r1', 'r3'],
    });
    expect(await s.constraints.profile(t.other, 'root')).toBeUndefined();
    expect((await s.taskReads.get(t.op, 'child'))?.constraintsInstalled).toBe(true);
    await s.tasks.create(task(t.id, 'used'));
    await s.exec(
      `INSERT INTO admissions (tenant_id, id, root_id, task_id, intent_id, actor_id, capability, amount_micros, created_at)
       VALUES (?, 'u1', 'used', 'used', 'iu', 'agent-1', 'pay', 1, ?)`,
      [t.id, T1],
    );
    expect(await failure(s.constraints.install(t.sponsor, 'used', plan, new Date(T2)))).toMatchObject({
      code: 'task_used',
    });
  });

  it('discovery: held by permission or live entitlement; the catalogue is what is requestable and not held', async () => {
    const t = await tenant();
    for (const name of ['granted', 'entitled', 'expired', 'revoked', 'hidden']) {
      await s.capabilities.put(capability(t.id, name, { requestable: name !== 'hidden' }));
    }
    await s.permissions.grant({ tenantId: t.id, actorId: 'agent-1', capability: 'granted', grantedAt: T0 });
    for (const [id, cap, expires, revoked] of [
      ['e1', 'entitled', T2, null],
      ['e2', 'expired', T1, null],
      ['e3', 'revoked', T2, T1],
    ] as const) {
      await s.exec(
        `INSERT INTO entitlements (tenant_id, id, actor_id, capability, created_at, expires_at, revoked_at)
         VALUES (?, ?, 'agent-1', ?, ?, ?, ?)`,
        [t.id, id, cap, T0, expires, revoked],
      );
    }
    const now = new Date(T1);
    expect((await s.discovery.held(t.id, 'agent-1', now)).map((c) => c.name)).toEqual([
      'entitled',
      'granted',
    ]);
    expect((await s.discovery.catalogue(t.id, 'agent-1', now)).map((c) => c.name)).toEqual([
      'expired',
      'revoked',
    ]);
    expect((await s.discovery.catalogue(t.id, 'agent-2', now)).map((c) => c.name)).toEqual([
      'entitled',
      'expired',
      'granted',
      'revoked',
    ]);
  });

  it('receipts: journal order, the read rule, the task filter, one receipt and its entry line', async () => {
    const t = await tenant();
    await s.tasks.create(task(t.id, 'mine'));
    await s.tasks.create(task(t.id, 'theirs', { sponsorId: 'op' }));
    const rows = [
      ['agent-1', 'mine', true],
      ['agent-2', 'theirs', false],
      ['agent-2', 'mine', true],
      ['agent-1', null, true],
    ] as const;
    for (const [i, [who, taskId, allowed]] of rows.entries()) {
      const seq = i + 1;
      await s.exec(
        `INSERT INTO journal (tenant_id, sequence, kind, receipt_id, task_id, record, record_hash, intent_id, actor_id,
           capability, tier, allowed, grant_id, amount_micros, occurred_at, linked_at, tombstone, leaf, chain_hash)
         VALUES (?, ?, 'decision', ?, ?, ?, ?, ?, ?, 'pay', 2, ?, '', ?, ?, ?, NULL, ?, ?)`,
        [
          t.id,
          seq,
          `rcpt-${seq}`,
          taskId,
          JSON.stringify({ action: 'send', reason: `because ${seq}` }),
          'a'.repeat(64),
          `intent-${seq}`,
          who,
          allowed ? 1 : 0,
          2n ** 54n + BigInt(seq),
          T0,
          T1,
          'b'.repeat(64),
          'c'.repeat(64),
        ],
      );
    }
    const first = await s.receipts.list(t.op, { limit: 3 }, {});
    expect(first.items.map((r) => r.receipt_id)).toEqual(['rcpt-1', 'rcpt-2', 'rcpt-3']);
    expect(first.next).toBe(3);
    expect((await s.receipts.list(t.op, { limit: 3, after: 3 }, {})).items.map((r) => r.sequence)).toEqual([
      4,
    ]);
    expect((await s.receipts.list(t.agent, { limit: 10 }, {})).items.map((r) => r.sequence)).toEqual([1, 4]);
    expect((await s.receipts.list(t.sponsor, { limit: 10 }, {})).items.map((r) => r.sequence)).toEqual([
      1, 3,
    ]);
    expect(
      (await s.receipts.list(t.op, { limit: 10 }, { taskId: 'mine' })).items.map((r) => r.sequence),
    ).toEqual([1, 3]);
    expect(await failure(s.receipts.list(t.op, { limit: 10 }, { taskId: 'typo' }))).toMatchObject({
      code: 'not_found',
    });
    const one = await s.receipts.get(t.agent, 'rcpt-1');
    expect(one).toMatchObject({ sequence: 1, action: 'send', reason: 'because 1', outcome: 'allowed' });
    expect(await s.receipts.get(t.agent, 'rcpt-2')).toBeUndefined();
    expect(await s.receipts.entryOf(t.op, 'rcpt-2')).toEqual({
      type: 'entry',
      tenant_id: t.id,
      sequence: 2,
      record_hash: 'a'.repeat(64),
      intent_id: 'intent-2',
      actor_id: 'agent-2',
      capability: 'pay',
      tier: 2,
      allowed: false,
      grant_id: '',
      amount_usd: (await s.receipts.get(t.op, 'rcpt-2'))?.amount_usd,
      occurred_at: T0,
      linked_at: T1,
      chain_hash: 'c'.repeat(64),
      leaf: 'b'.repeat(64),
    });
    expect(await s.receipts.entryOf(t.agent, 'rcpt-2')).toBeUndefined();
  });

  it('secrets: created then updated, sealed bytes back exactly, listed by name, deleted once', async () => {
    const t = await tenant();
    const sealed = new Uint8Array([0, 255, 1, 128, 0]);
    expect(await s.secrets.put(t.id, 'token', { keyId: 'k1', sealed }, T0)).toBe('created');
    expect(await s.secrets.put(t.id, 'token', { keyId: 'k2', sealed: new Uint8Array([7]) }, T1)).toBe(
      'updated',
    );
    await s.secrets.put(t.id, 'Alpha', { keyId: 'k1', sealed }, T0);
    const got = await s.secrets.get(t.id, 'Alpha');
    expect(got?.keyId).toBe('k1');
    expect([...(got?.sealed ?? [])]).toEqual([...sealed]);
    expect(await s.secrets.list(t.id)).toEqual([
      { name: 'Alpha', keyId: 'k1', createdAt: T0, updatedAt: T0 },
      { name: 'token', keyId: 'k2', createdAt: T0, updatedAt: T1 },
    ]);
    expect(await s.secrets.delete(t.id, 'token')).toBe(true);
    expect(await s.secrets.delete(t.id, 'token')).toBe(false);
    expect(await s.secrets.get(t.id, 'token')).toBeUndefined();
  });

  it('channels: add, list by id, approver by exact user id, a replayed signature refused', async () => {
    const t = await tenant();
    await s.exec('UPDATE actors SET chat_user_id = ? WHERE tenant_id = ? AND id = ?', [
      'U123',
      t.id,
      'sponsor',
    ]);
    const chat = {
      id: `${t.id}-chat`,
      tenantId: t.id,
      kind: 'chat' as const,
      signingSecretRef: 'env:X',
      createdAt: T0,
    };
    const collab = {
      id: `${t.id}-collab`,
      tenantId: t.id,
      kind: 'collab' as const,
      openidMetadataUrl: 'https://login.example/.well-known/openid-configuration',
      appId: 'app',
      issuer: 'https://login.example/',
      createdAt: T0,
    };
    await s.channels.add(collab);
    await s.channels.add(chat);
    expect(await failure(s.channels.add(chat))).toMatchObject({ code: 'already_exists' });
    expect(await s.channels.list(t.id)).toEqual([chat, collab]);
    expect(await s.channels.get(chat.id)).toEqual(chat);
    expect((await s.channels.approverFor(t.id, 'chat', 'U123'))?.id).toBe('sponsor');
    expect(await s.channels.approverFor(t.id, 'chat', 'u123')).toBeUndefined();
    expect(await s.channels.approverFor(t.id, 'collab', 'U123')).toBeUndefined();
    expect(await s.channels.rememberSignature(chat.id, 'sig', 1000, 500)).toBe(true);
    expect(await s.channels.rememberSignature(chat.id, 'sig', 1000, 600)).toBe(false);
    // Expired entries are forgotten on the way.
    expect(await s.channels.rememberSignature(chat.id, 'sig', 2000, 1000)).toBe(true);
    expect(await s.channels.remove(chat.id)).toBe(true);
    expect(await s.channels.remove(chat.id)).toBe(false);
    expect(await s.channels.rememberSignature(chat.id, 'sig', 3000, 1500)).toBe(false);
  });

  it('themes: revisions follow each other; a save from a stale revision writes nothing', async () => {
    const t = await tenant();
    const theme = { name: 'x' } as unknown as Theme;
    expect(await s.themes.current(t.id)).toBeUndefined();
    const first = await s.themes.save({ tenantId: t.id, theme, source: 'install', createdBy: null, at: T0 });
    expect(first).toEqual({
      tenantId: t.id,
      revision: 1,
      theme,
      source: 'install',
      createdBy: null,
      createdAt: T0,
    });
    await s.themes.save({ tenantId: t.id, theme, source: 'editor', createdBy: 'op', at: T1, expected: 1 });
    expect(
      await failure(
        s.themes.save({ tenantId: t.id, theme, source: 'editor', createdBy: 'op', at: T2, expected: 1 }),
      ),
    ).toMatchObject({ code: 'stale_revision', field: 'revision' });
    expect(await s.themes.current(t.id)).toMatchObject({ revision: 2, createdBy: 'op', createdAt: T1 });
  });

  it('themes: an editor logo is kept with its revision, found by tenant and name, never in the revision read', async () => {
    const t = await tenant();
    const other = await tenant();
    const theme = { name: 'x' } as unknown as Theme;
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 0, 255]);
    const name = `logo-${'ab'.repeat(32)}.png`;
    const saved = await s.themes.save({
      tenantId: t.id,
      theme,
      source: 'editor',
      createdBy: 'op',
      at: T0,
      logo: { name, bytes },
    });
    expect(saved).not.toHaveProperty('logo');
    expect(await s.themes.current(t.id)).toEqual(saved);
    expect(Buffer.from((await s.themes.logo(t.id, name))!).equals(Buffer.from(bytes))).toBe(true);
    // a later revision without a logo leaves the earlier one's bytes where they were
    await s.themes.save({ tenantId: t.id, theme, source: 'editor', createdBy: 'op', at: T1, expected: 1 });
    expect(await s.themes.logo(t.id, name)).toBeDefined();
    expect(await s.themes.logo(other.id, name)).toBeUndefined();
    expect(await s.themes.logo(t.id, `logo-${'cd'.repeat(32)}.png`)).toBeUndefined();
    expect(
      await failure(
        s.themes.save({
          tenantId: t.id,
          theme,
          source: 'editor',
          createdBy: 'op',
          at: T2,
          logo: { name: '../../etc/passwd', bytes },
        }),
      ),
    ).toBeInstanceOf(Error);
    expect((await s.themes.current(t.id))?.revision).toBe(2);
  });

  it('console sessions: found by id hash, touched, purged when expired, deleted', async () => {
    const t = await tenant();
    const a = new Uint8Array(32).fill(1);
    const b = new Uint8Array(32).fill(2);
    const session = {
      tenantId: t.id,
      actorId: 'op',
      tokenId: null,
      createdAt: T0,
      lastSeenAt: T0,
      expiresAt: T1,
    };
    await s.consoleSessions.create(a, session);
    await s.consoleSessions.create(b, { ...session, expiresAt: T2 });
    expect(await failure(s.consoleSessions.create(a, session))).toMatchObject({ code: 'already_exists' });
    await s.consoleSessions.touch(b, T1);
    expect(await s.consoleSessions.find(b)).toEqual({ ...session, expiresAt: T2, lastSeenAt: T1 });
    expect(await s.consoleSessions.purge(T1)).toBeGreaterThanOrEqual(1);
    expect(await s.consoleSessions.find(a)).toBeUndefined();
    await s.consoleSessions.delete(b);
    expect(await s.consoleSessions.find(b)).toBeUndefined();
  });
});
