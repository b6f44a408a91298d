import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import { admits } from '../../../src/core/constraints.js';
import { PolicyCache } from '../../../src/daemon/policy-cache.js';
import type { Sealed } from '../../../src/store/decision-ports.js';
import type { Store } from '../../../src/store/ports.js';
import type { StoreHarness } from '../harness.js';
import { request } from '../../helpers/pg-seed.js';
import { capabilityRecord, taskRecord } from '../../helpers/registry-records.js';
import { human, T0 } from './fixtures.js';

type SealedDecision = Extract<Sealed, { kind: 'sealed' }>;

const bot: Actor = human('acme', 'bot', { kind: 'agent', roles: [], managerId: 'alice' });
const alice = human('acme', 'alice', { roles: ['administrator', 'approver'] });
const carol = human('acme', 'carol', { roles: ['auditor'] });
const rules = { policy: new PolicyCache(), constraints: admits };

/** acme: alice (administrator, approver), carol (auditor), agent bot; crm.paid (0.01 USD), payments.send (irreversible). */
async function provision(store: Store): Promise<void> {
  await store.tenants.create({
    tenant: { id: 'acme', createdAt: T0 },
    signingKey: { tenantId: 'acme', keyId: 'k1', publicKey: 'cHVibGlj', algorithm: 'ed25519', createdAt: T0 },
    admin: alice,
  });
  await store.actors.add(bot);
  await store.actors.add(carol);
  for (const [name, tier, irreversible, costMicros] of [
    ['crm.paid', 1, false, 10_000n],
    ['payments.send', 4, true, 1_000_000n],
  ] as const) {
    await store.capabilities.put(
      capabilityRecord('acme', name, T0, { tier, irreversible, actions: ['write'], costMicros }),
    );
    await store.permissions.grant({ tenantId: 'acme', actorId: 'bot', capability: name, grantedAt: T0 });
  }
  await store.policies.set('acme', 'permit (principal, action, resource);', T0);
  for (const [id, budgetMicros, status] of [
    ['big', 10n ** 12n, 'active'],
    ['small', 30_000n, 'active'],
    ['half', 20_000n, 'active'],
    ['done', 10_000n, 'closed'],
  ] as const) {
    await store.tasks.create(taskRecord('acme', id, T0, { budgetMicros, status }));
  }
}

/** OverviewReads (src/store/overview-ports.ts), Receipts.newest and the approvals' history filter. */
export function overviewContract(h: () => StoreHarness): void {
  describe('the console overview and records', () => {
    it('counts journal records per hour, kind, outcome and code as they are appended', async () => {
      let now = new Date('2026-03-01T10:15:00.000Z');
      const store = await h().open({ clock: () => now });
      await provision(store);
      const decide = (req: Parameters<Store['decisions']['decide']>[0]) =>
        store.decisions.decide(req, bot, 'new', rules);
      for (const step of ['a', 'b', 'c', 'd']) await decide(request('crm.paid', 'small', step));
      now = new Date('2026-03-01T11:40:00.000Z');
      const deferred = (await decide(request('payments.send', 'big', 'pay', 2))) as SealedDecision;
      await store.approvals.decide({
        tenantId: 'acme',
        approvalId: deferred.approval!.approvalId,
        deciderId: 'alice',
        decision: 'approve',
        note: null,
        channel: 'console',
        at: now,
      });
      await decide(request('crm.paid', 'half', 'x'));
      expect(await store.overview.activity('acme', '2026-03-01T10')).toEqual([
        { hour: '2026-03-01T10', kind: 'decision', outcome: 'allowed', code: '', count: 3 },
        { hour: '2026-03-01T10', kind: 'decision', outcome: 'refused', code: 'budget_exceeded', count: 1 },
        { hour: '2026-03-01T11', kind: 'approval', outcome: 'approved', code: '', count: 1 },
        { hour: '2026-03-01T11', kind: 'decision', outcome: 'allowed', code: '', count: 1 },
        { hour: '2026-03-01T11', kind: 'decision', outcome: 'deferred', code: '', count: 1 },
      ]);
      expect((await store.overview.activity('acme', '2026-03-01T11')).map((r) => r.hour)).toEqual([
        '2026-03-01T11',
        '2026-03-01T11',
        '2026-03-01T11',
      ]);
      expect(await store.overview.activity('other', '2026-03-01T00')).toEqual([]);
      // a second store on the database counts into the same rows
      const twin = await h().reopen(store, { clock: () => now });
      await twin.decisions.decide(request('crm.paid', 'half', 'y'), bot, 'new', rules);
      expect(await store.overview.activity('acme', '2026-03-01T11')).toContainEqual({
        hour: '2026-03-01T11',
        kind: 'decision',
        outcome: 'allowed',
        code: '',
        count: 2,
      });
    });

    it('counts the pending approvals a viewer reads and lists the oldest first; decided or expired ones are not', async () => {
      let now = new Date('2026-03-01T10:00:00.000Z');
      const store = await h().open({ clock: () => now });
      await provision(store);
      const opened: string[] = [];
      for (const step of ['p1', 'p2', 'p3']) {
        const d = (await store.decisions.decide(
          request('payments.send', 'big', step, 2),
          bot,
          'new',
          rules,
        )) as SealedDecision;
        opened.push(d.approval!.approvalId);
        now = new Date(now.getTime() + 60_000);
      }
      await store.approvals.decide({
        tenantId: 'acme',
        approvalId: opened[0]!,
        deciderId: 'alice',
        decision: 'deny',
        note: null,
        channel: 'cli',
        at: now,
      });
      const seen = await store.overview.pendingApprovals(alice, now, 1);
      expect(seen.count).toBe(2);
      expect(seen.oldest.map((a) => [a.id, a.status])).toEqual([[opened[1], 'pending']]);
      // the requester reads its own; an auditor who is no approver reads none of them
      expect((await store.overview.pendingApprovals(bot, now, 5)).count).toBe(2);
      expect(await store.overview.pendingApprovals(carol, now, 5)).toEqual({ count: 0, oldest: [] });
      const later = new Date(now.getTime() + 400 * 86_400_000);
      expect(await store.overview.pendingApprovals(alice, later, 5)).toEqual({ count: 0, oldest: [] });

      // the history: every approval no longer waiting, newest first, with who decided and where
      const history = await store.approvals.list(
        alice,
        { limit: 10 },
        { status: 'history', order: 'newest' },
        now,
      );
      expect(history.items.map((a) => [a.id, a.status, a.decidedBy, a.channel])).toEqual([
        [opened[0], 'denied', 'alice', 'cli'],
      ]);
      const all = await store.approvals.list(
        alice,
        { limit: 2 },
        { status: 'history', order: 'newest' },
        later,
      );
      expect(all.items.map((a) => [a.id, a.status])).toEqual([
        [opened[2], 'expired'],
        [opened[1], 'expired'],
      ]);
      expect(all.next).toBeDefined();
      const rest = await store.approvals.list(
        alice,
        { limit: 2, after: all.next },
        { status: 'history', order: 'newest' },
        later,
      );
      expect(rest.items.map((a) => [a.id, a.status])).toEqual([[opened[0], 'denied']]);
    });

    it('orders active tasks by the share of their budget reserved, closed ones left out', async () => {
      const store = await h().open();
      await provision(store);
      await store.decisions.decide(request('crm.paid', 'small', 's1'), bot, 'new', rules);
      await store.decisions.decide(request('crm.paid', 'half', 'h1'), bot, 'new', rules);
      const burn = await store.overview.taskBurn('acme', 10);
      expect(burn.map((t) => [t.id, t.reservedMicros])).toEqual([
        ['half', 10_000n],
        ['small', 10_000n],
        ['big', 0n],
      ]);
      expect((await store.overview.taskBurn('acme', 1)).map((t) => t.id)).toEqual(['half']);
    });

    it('says how far the journal runs ahead of its latest signed head', async () => {
      const store = await h().open();
      await provision(store);
      expect(await store.overview.anchorBacklog('acme')).toEqual({
        size: 0,
        anchoredSize: 0,
        firstUnanchoredAt: null,
      });
      const first = (await store.decisions.decide(
        request('crm.paid', 'big', 'b1'),
        bot,
        'new',
        rules,
      )) as SealedDecision;
      await store.decisions.decide(request('crm.paid', 'big', 'b2'), bot, 'new', rules);
      const linkedAt = (await store.receipts.get(alice, first.receipt.receiptId))!.linked_at;
      expect(await store.overview.anchorBacklog('acme')).toEqual({
        size: 2,
        anchoredSize: 0,
        firstUnanchoredAt: linkedAt,
      });
      const keys = generateKeyPairSync('ed25519');
      const signer = { keyId: 'k1', sign: (m: Uint8Array) => new Uint8Array(sign(null, m, keys.privateKey)) };
      await store.anchors.signCurrent('acme', signer, new Date().toISOString());
      expect(await store.overview.anchorBacklog('acme')).toEqual({
        size: 2,
        anchoredSize: 2,
        firstUnanchoredAt: null,
      });
      expect(await store.overview.anchorBacklog('other')).toEqual({
        size: 0,
        anchoredSize: 0,
        firstUnanchoredAt: null,
      });
    });

    it('reads receipts newest first in bounded windows, keeping the read rule inside the window', async () => {
      const store = await h().open();
      await provision(store);
      for (let i = 1; i <= 5; i++) {
        await store.decisions.decide(
          request('crm.paid', i % 2 === 0 ? 'half' : 'big', `w${i}`),
          bot,
          'new',
          rules,
        );
      }
      const first = await store.receipts.newest(alice, { span: 2 }, {});
      expect(first.items.map((r) => r.sequence)).toEqual([5, 4]);
      expect(first.next).toBe(4);
      const second = await store.receipts.newest(alice, { before: 4, span: 2 }, {});
      expect(second.items.map((r) => r.sequence)).toEqual([3, 2]);
      const last = await store.receipts.newest(alice, { before: 2, span: 2 }, {});
      expect(last).toEqual({ items: [expect.objectContaining({ sequence: 1 })], next: undefined });
      expect(
        (await store.receipts.newest(alice, { span: 10 }, { taskId: 'half' })).items.map((r) => r.sequence),
      ).toEqual([4, 2]);
      // carol reads the whole tenant (auditor); a human with no role reads nothing of bot's,
      // yet the window still moves on by what it examined
      await store.actors.add(human('acme', 'dave', { roles: [] }));
      const dave = (await store.actors.get('acme', 'dave'))!;
      expect(await store.receipts.newest(dave, { span: 3 }, {})).toEqual({ items: [], next: 3 });
      expect((await store.receipts.newest(carol, { span: 3 }, {})).items).toHaveLength(3);
    });
  });
}
