import { beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import type { Capability } from '../../../src/core/capability.js';
import { admits } from '../../../src/core/constraints.js';
import type { PipelineRules } from '../../../src/core/decision/pipeline.js';
import type { Sealed } from '../../../src/core/decision/sealed.js';
import type { Task } from '../../../src/core/task.js';
import type { Theme } from '../../../src/core/theme/theme.js';
import { PolicyCache } from '../../../src/daemon/policy-cache.js';
import type { EntryLine } from '../../../src/evidence/export-line.js';
import type { Store } from '../../../src/store/ports.js';
import { decisionRequest, type RequestSpec } from '../../helpers/decision-request.js';
import type { StoreHarness } from '../harness.js';
import { tenantWith } from './fixtures.js';
import { actorRecord, capabilityRecord, taskRecord } from '../../helpers/registry-records.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const T2 = '2026-01-03T00:00:00.000Z';
const T3 = '2026-01-04T00:00:00.000Z';
const DAY_S = 24 * 3600;

function actor(tenantId: string, id: string, kind: Actor['kind'], roles: Actor['roles'] = []): Actor {
  return actorRecord(tenantId, id, T0, { kind, roles });
}

function capability(tenantId: string, name: string, o: Partial<Capability> = {}): Capability {
  return capabilityRecord(tenantId, name, T0, o);
}

function task(tenantId: string, id: string, o: Partial<Task> = {}): Task {
  return taskRecord(tenantId, id, T0, {
    sponsorId: 'sponsor',
    status: 'draft',
    budgetMicros: 10_000_000n,
    actors: [],
    ...o,
  });
}

/** What a rejected promise was, so both adapters' errors compare by code. */
async function failure(p: Promise<unknown>): Promise<{ code?: string; kind?: string }> {
  return p.then(
    () => ({}),
    (err: unknown) => err as { code?: string },
  );
}

type SealedDecision = Extract<Sealed, { kind: 'sealed' }>;

/** CapabilityRepo, PermissionRepo, PolicyRepo, TaskRepo, the query ports, secrets, channels, themes and console sessions. */
export function registryContract(h: () => StoreHarness): void {
  describe('registry ports', () => {
    let s: Store;
    let n = 0;
    let probes = 0;
    /** what the store's decisions are timed by; a case sets it before it decides */
    let now = new Date(T0);
    beforeAll(async () => {
      s = await h().open({ clock: () => now });
    });

    /** A fresh tenant per case with an operator, a human sponsor and three agents. */
    async function tenant(): Promise<{ id: string; op: Actor; sponsor: Actor; agent: Actor; other: Actor }> {
      const id = `t${++n}`;
      const people = {
        op: actor(id, 'op', 'human', ['operator']),
        sponsor: actor(id, 'sponsor', 'human'),
        agent: actor(id, 'agent-1', 'agent'),
        other: actor(id, 'Agent-Z', 'agent'),
      };
      await tenantWith(s, id, [...Object.values(people), actor(id, 'agent-2', 'agent')], T0);
      return { id, ...people };
    }

    /** A decision through the store's DecisionStore, judged by the daemon's policy cache. */
    const decide = (caller: Actor, spec: RequestSpec, rules: Partial<PipelineRules> = {}) =>
      s.decisions.decide(
        decisionRequest({ tenantId: caller.tenantId, actorId: caller.id, ...spec }),
        caller,
        'new',
        {
          policy: new PolicyCache(),
          constraints: admits,
          ...rules,
        },
      );

    /**
     * The tenant's registry version as a decision reads it inside its transaction (what the
     * daemon's compiled policies are cached by): the resolver records the version it is asked
     * for and denies, so the probe only seals a refusal.
     */
    async function registryVersion(tenantId: string): Promise<number> {
      let seen: number | undefined;
      const deny = { evaluate: () => ({ allow: false, noPolicy: false, determining: [] }), version: 0 };
      await decide(
        actor(tenantId, 'op', 'human', ['operator']),
        { capability: 'probe', step: `probe-${++probes}` },
        {
          policy: {
            cached: (_t, version) => {
              seen = version;
              return deny;
            },
            install: () => deny,
          },
        },
      );
      if (seen === undefined) throw new Error('the decision never asked for the policy');
      return seen;
    }
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
      // 5 USD reserved the way it always is: by an allowed decision on the task
      await s.capabilities.put(capability(t.id, 'pay'));
      await s.permissions.grant({ tenantId: t.id, actorId: 'agent-1', capability: 'pay', grantedAt: T0 });
      await s.policies.set(t.id, 'permit (principal, action, resource);', T0);
      await s.tasks.create(task(t.id, 'root', { status: 'active', actors: ['agent-1'] }));
      expect(
        await decide(t.agent, { capability: 'pay', action: 'read', taskId: 'root', amountUsd: 5 }),
      ).toMatchObject({ outcome: 'allowed', amountMicros: 5_000_000n });
      expect((await s.tasks.get(t.id, 'root'))?.reservedMicros).toBe(5_000_000n);
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
      await s.tasks.create(
        task(t.id, 'child', { parentId: 'root', rootId: 'root', status: 'active', budgetMicros: 2n ** 62n }),
      );
      const plan = { capabilities: ['pay'], actors: ['agent-1', 'agent-2'], max_total_usd: 100_000_000_000 };
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
      // Admissions as decisions make them, out of time order (the ledger orders by time), each
      // below 2^53 micros (what the policy engine takes) and together well above it.
      await s.permissions.grant({ tenantId: t.id, actorId: 'agent-1', capability: 'pay', grantedAt: T0 });
      await s.permissions.grant({ tenantId: t.id, actorId: 'agent-2', capability: 'pay', grantedAt: T0 });
      await s.policies.set(t.id, 'permit (principal, action, resource);', T0);
      const big = 2n ** 53n - 1n;
      const admitted: [string, string][] = [];
      for (const [who, at] of [
        [actor(t.id, 'agent-2', 'agent'), T2],
        [t.agent, T1],
        [t.agent, T3],
      ] as const) {
        now = new Date(at);
        const d = (await decide(who, {
          capability: 'pay',
          action: 'read',
          taskId: 'child',
          step: `${who.id}-${at}`,
          amountMicros: big,
        })) as SealedDecision;
        expect(d).toMatchObject({ outcome: 'allowed', amountMicros: big });
        admitted.push([who.id, at]);
      }
      const full = await s.constraints.profile(t.sponsor, 'child');
      expect(full?.ledger).toMatchObject({ visibility: 'full', count: 3, totalMicros: 3n * big });
      const rows = full?.ledger.visibility === 'full' ? full.ledger.admissions : [];
      expect(rows.map((a) => [a.actorId, a.createdAt, a.rootId, a.taskId, a.amountMicros])).toEqual([
        ['agent-1', T1, 'root', 'child', big],
        ['agent-2', T2, 'root', 'child', big],
        ['agent-1', T3, 'root', 'child', big],
      ]);
      expect((await s.constraints.profile(t.agent, 'root'))?.ledger).toEqual({
        visibility: 'own',
        reservationIds: rows.filter((a) => a.actorId === 'agent-1').map((a) => a.id),
      });
      expect(await s.constraints.profile(t.other, 'root')).toBeUndefined();
      expect((await s.taskReads.get(t.op, 'child'))?.constraintsInstalled).toBe(true);
      // A root with admissions but no plan (rows from before plans existed) cannot be made
      // through the ports: test/integration/unused-root.test.ts seeds it on each adapter.
    });

    it('discovery: held by permission or live entitlement; the catalogue is what is requestable and not held', async () => {
      const t = await tenant();
      for (const name of ['granted', 'entitled', 'expired', 'revoked', 'hidden']) {
        await s.capabilities.put(capability(t.id, name, { requestable: name !== 'hidden', owners: ['op'] }));
      }
      await s.permissions.grant({ tenantId: t.id, actorId: 'agent-1', capability: 'granted', grantedAt: T0 });
      // Entitlements as access requests make them: asked at T0, approved by the owner for two
      // days (until T2) or one (until T1, so expired at T1), and one revoked before T1.
      for (const [cap, days, revoke] of [
        ['entitled', 2, false],
        ['expired', 1, false],
        ['revoked', 2, true],
      ] as const) {
        const { request } = await s.accessRequests.request({
          tenantId: t.id,
          actorId: 'agent-1',
          capability: cap,
          reason: 'r',
          durationSeconds: days * DAY_S,
          at: new Date(T0),
        });
        const { entitlement } = await s.managerCards.decide({
          tenantId: t.id,
          cardId: request.cards[0]!.cardId,
          deciderId: 'op',
          decision: 'approve',
          note: null,
          at: new Date(T0),
        });
        expect(entitlement?.expiresAt).toBe(days === 2 ? T2 : T1);
        if (revoke) await s.entitlements.revoke(t.op, entitlement!.id, null, new Date(Date.parse(T1) - 1000));
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
      const other = actor(t.id, 'agent-2', 'agent');
      await s.capabilities.put(capability(t.id, 'pay', { requestable: true, owners: ['op'] }));
      await s.capabilities.put(capability(t.id, 'ask', { requestable: true, owners: ['op'] }));
      await s.permissions.grant({ tenantId: t.id, actorId: 'agent-1', capability: 'pay', grantedAt: T0 });
      await s.permissions.grant({ tenantId: t.id, actorId: 'agent-2', capability: 'pay', grantedAt: T0 });
      await s.policies.set(t.id, 'permit (principal, action, resource);', T0);
      await s.tasks.create(task(t.id, 'mine', { status: 'active', budgetMicros: 2n ** 62n }));
      await s.tasks.create(task(t.id, 'theirs', { sponsorId: 'op', status: 'active' }));
      // 1 and 3 allowed on the sponsor's task, 2 refused (over budget) on the operator's, and 4
      // a record with no task (an access request), each below 2^53 micros apart
      const big = 2n ** 53n - 1n;
      now = new Date(T1);
      const sealed: SealedDecision[] = [];
      for (const [i, [who, taskId]] of (
        [
          [t.agent, 'mine'],
          [other, 'theirs'],
          [other, 'mine'],
        ] as const
      ).entries()) {
        const spec = {
          capability: 'pay',
          action: 'read',
          taskId,
          step: `r${i}`,
          amountMicros: big - BigInt(i),
        };
        sealed.push((await decide(who, spec)) as SealedDecision);
      }
      expect(sealed.map((d) => d.outcome)).toEqual(['allowed', 'refused', 'allowed']);
      const asked = await s.accessRequests.request({
        tenantId: t.id,
        actorId: 'agent-1',
        capability: 'ask',
        reason: 'r',
        durationSeconds: 60,
        at: new Date(T1),
      });
      const ids = [...sealed.map((d) => d.receipt.receiptId), asked.receipt.receiptId];
      const first = await s.receipts.list(t.op, { limit: 3 }, {});
      expect(first.items.map((r) => r.receipt_id)).toEqual(ids.slice(0, 3));
      expect(first.next).toBe(3);
      expect((await s.receipts.list(t.op, { limit: 3, after: 3 }, {})).items.map((r) => r.sequence)).toEqual([
        4,
      ]);
      expect((await s.receipts.list(t.agent, { limit: 10 }, {})).items.map((r) => r.sequence)).toEqual([
        1, 4,
      ]);
      expect((await s.receipts.list(t.sponsor, { limit: 10 }, {})).items.map((r) => r.sequence)).toEqual([
        1, 3,
      ]);
      expect(
        (await s.receipts.list(t.op, { limit: 10 }, { taskId: 'mine' })).items.map((r) => r.sequence),
      ).toEqual([1, 3]);
      expect(await failure(s.receipts.list(t.op, { limit: 10 }, { taskId: 'typo' }))).toMatchObject({
        code: 'not_found',
      });
      const one = await s.receipts.get(t.agent, ids[0]!);
      expect(one).toMatchObject({ sequence: 1, receipt_id: ids[0], action: 'read', outcome: 'allowed' });
      expect(await s.receipts.get(t.agent, ids[1]!)).toBeUndefined();
      expect(await s.receipts.get(t.op, ids[1]!)).toMatchObject({
        sequence: 2,
        outcome: 'refused',
        code: 'budget_exceeded',
        reason: sealed[1]!.reason,
      });
      // the entry line a proof covers is the one the export writes for that sequence
      const snapshot = await s.journalExports.snapshot(t.id);
      const lines: EntryLine[] = [];
      try {
        for await (const page of snapshot.items(snapshot.size, {})) {
          for (const line of page) if (line.type === 'entry') lines.push(line);
        }
      } finally {
        await snapshot.close();
      }
      const entry = await s.receipts.entryOf(t.op, ids[1]!);
      expect(entry).toEqual(lines.find((l) => l.sequence === 2));
      expect(entry).toMatchObject({
        type: 'entry',
        tenant_id: t.id,
        sequence: 2,
        record_hash: sealed[1]!.receipt.recordHash,
        intent_id: sealed[1]!.intentId,
        actor_id: 'agent-2',
        capability: 'pay',
        tier: 1,
        allowed: false,
        grant_id: '',
        amount_usd: (await s.receipts.get(t.op, ids[1]!))?.amount_usd,
        occurred_at: T1,
      });
      expect(await s.receipts.entryOf(t.agent, ids[1]!)).toBeUndefined();
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
      // the approver a chat channel names by its platform user id, registered with it
      await s.actors.add({ ...actor(t.id, 'approver', 'human', ['approver']), chatUserId: 'U123' });
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
      expect((await s.channels.approverFor(t.id, 'chat', 'U123'))?.id).toBe('approver');
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
      const first = await s.themes.save({
        tenantId: t.id,
        theme,
        source: 'install',
        createdBy: null,
        at: T0,
      });
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
}
