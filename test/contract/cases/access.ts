import { beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import type { Capability } from '../../../src/core/capability.js';
import type { Store } from '../../../src/store/ports.js';
import type { StoreHarness } from '../harness.js';
import { tenantWith } from './fixtures.js';
import { actorRecord, capabilityRecord } from '../../helpers/registry-records.js';

const T0 = new Date('2026-01-01T00:00:00.000Z');
const later = (s: number) => new Date(T0.getTime() + s * 1000);

function actor(tenantId: string, id: string, kind: Actor['kind'], o: Partial<Actor> = {}): Actor {
  return actorRecord(tenantId, id, T0.toISOString(), { kind, ...o });
}

function capability(tenantId: string, name: string, o: Partial<Capability> = {}): Capability {
  return capabilityRecord(tenantId, name, T0.toISOString(), {
    tier: 2,
    actions: ['write'],
    costMicros: 0n,
    requestable: true,
    owners: ['owner'],
    ...o,
  });
}

async function failure(p: Promise<unknown>): Promise<{ code?: string }> {
  return p.then(
    () => ({}),
    (err: unknown) => err as { code?: string },
  );
}

/** AccessRequestStore, ManagerCardStore, EntitlementStore: every write journaled. */
export function accessContract(h: () => StoreHarness): void {
  describe('journaled access ports', () => {
    let s: Store;
    let n = 0;
    beforeAll(async () => {
      s = await h().open();
    });

    /** A tenant with an operator, a manager, a capability owner, an agent they oversee and a stranger. */
    async function tenant() {
      const id = `a${++n}`;
      const people = {
        op: actor(id, 'op', 'human', { roles: ['operator'] }),
        mgr: actor(id, 'mgr', 'human'),
        owner: actor(id, 'owner', 'human'),
        bot: actor(id, 'bot', 'agent', { managerId: 'mgr' }),
        stranger: actor(id, 'stranger', 'agent', { managerId: 'op' }),
      };
      await tenantWith(s, id, Object.values(people), T0.toISOString());
      await s.capabilities.put(capability(id, 'crm.write'));
      await s.capabilities.put(capability(id, 'hidden', { requestable: false }));
      return { id, ...people };
    }

    const receipts = async (t: { op: Actor }) =>
      (await s.receipts.list(t.op, { limit: 100 }, {})).items.map((r) => [r.sequence, r.kind, r.outcome]);

    it('a request opens cards for the manager and the owner, journaled; one pending at a time', async () => {
      const t = await tenant();
      expect(
        await failure(
          s.accessRequests.request({
            tenantId: t.id,
            actorId: 'bot',
            capability: 'hidden',
            reason: 'x',
            durationSeconds: 60,
            at: T0,
          }),
        ),
      ).toMatchObject({ code: 'not_in_catalogue', field: 'capability' });
      const { request, receipt } = await s.accessRequests.request({
        tenantId: t.id,
        actorId: 'bot',
        capability: 'crm.write',
        reason: 'quarterly import',
        durationSeconds: 3600,
        at: T0,
      });
      expect(receipt.sequence).toBe(1);
      expect(request).toMatchObject({
        actorId: 'bot',
        capability: 'crm.write',
        status: 'pending',
        durationSeconds: 3600,
        cards: [
          { recipientId: 'mgr', role: 'manager', status: 'pending' },
          { recipientId: 'owner', role: 'owner', status: 'pending' },
        ],
      });
      expect(
        await failure(
          s.accessRequests.request({
            tenantId: t.id,
            actorId: 'bot',
            capability: 'crm.write',
            reason: 'again',
            durationSeconds: 60,
            at: T0,
          }),
        ),
      ).toMatchObject({ code: 'request_pending' });
      expect((await s.accessRequests.get(t.mgr, request.id, T0))?.id).toBe(request.id);
      expect(await s.accessRequests.get(t.stranger, request.id, T0)).toBeUndefined();
      expect(await receipts(t)).toEqual([[1, 'access', 'requested']]);
    });

    it('the first card decision wins: an entitlement for the granted time, then revoked by an overseer', async () => {
      const t = await tenant();
      const { request } = await s.accessRequests.request({
        tenantId: t.id,
        actorId: 'bot',
        capability: 'crm.write',
        reason: 'import',
        durationSeconds: 3600,
        at: T0,
      });
      const [card] = await s.managerCards.list(t.mgr, { status: 'pending' }, T0);
      expect(card).toMatchObject({ requestId: request.id, role: 'manager', requesterId: 'bot' });
      const [ownerCard] = await s.managerCards.list(t.owner, {}, T0);
      const decided = await s.managerCards.decide({
        tenantId: t.id,
        cardId: card!.id,
        deciderId: 'mgr',
        decision: 'approve',
        durationSeconds: 600,
        note: 'ok for ten minutes',
        at: later(10),
      });
      expect(decided.request).toMatchObject({ status: 'approved', decidedBy: 'mgr', grantedSeconds: 600 });
      expect(decided.entitlement).toMatchObject({
        actorId: 'bot',
        capability: 'crm.write',
        status: 'active',
        grantedBy: 'mgr',
        expiresAt: later(610).toISOString(),
      });
      expect(decided.receipt.sequence).toBe(2);
      expect(
        await failure(
          s.managerCards.decide({
            tenantId: t.id,
            cardId: ownerCard!.id,
            deciderId: 'owner',
            decision: 'deny',
            note: null,
            at: later(20),
          }),
        ),
      ).toMatchObject({ code: 'already_decided' });
      expect((await s.discovery.held(t.id, 'bot', later(30))).map((c) => c.name)).toEqual(['crm.write']);
      const page = await s.entitlements.list(t.op, { limit: 10 }, { status: 'active' }, later(30));
      expect(page.items.map((e) => e.id)).toEqual([decided.entitlement!.id]);
      expect((await s.entitlements.list(t.owner, { limit: 10 }, {}, later(30))).items).toHaveLength(1);
      expect((await s.entitlements.list(t.stranger, { limit: 10 }, {}, later(30))).items).toHaveLength(0);
      expect(await s.entitlements.get(t.stranger, decided.entitlement!.id, later(30))).toBeUndefined();
      expect(
        (await s.entitlements.list(t.op, { limit: 10 }, { status: 'expired' }, later(700))).items,
      ).toHaveLength(1);
      const revoked = await s.entitlements.revoke(t.owner, decided.entitlement!.id, 'done', later(40));
      expect(revoked.entitlement).toMatchObject({ status: 'revoked', revokedBy: 'owner' });
      expect((await s.accessRequests.get(t.bot, request.id, later(41)))?.status).toBe('revoked');
      expect(await failure(s.entitlements.revoke(t.owner, 'ent_none', null, later(50)))).toMatchObject({
        code: 'not_found',
      });
      expect(await receipts(t)).toEqual([
        [1, 'access', 'requested'],
        [2, 'access', 'approved'],
        [3, 'access', 'entitlement_revoked'],
      ]);
    });

    it('a requester withdraws a pending request; concurrent deciders: exactly one wins, the log stays contiguous', async () => {
      const t = await tenant();
      const first = await s.accessRequests.request({
        tenantId: t.id,
        actorId: 'bot',
        capability: 'crm.write',
        reason: 'a',
        durationSeconds: 60,
        at: T0,
      });
      const withdrawn = await s.accessRequests.revoke(t.bot, first.request.id, 'not needed', later(1));
      expect(withdrawn.request).toMatchObject({ status: 'revoked', revokedBy: 'bot' });
      expect(await failure(s.accessRequests.revoke(t.bot, 'acr_none', null, later(2)))).toMatchObject({
        code: 'not_found',
      });
      const second = await s.accessRequests.request({
        tenantId: t.id,
        actorId: 'bot',
        capability: 'crm.write',
        reason: 'b',
        durationSeconds: 60,
        at: later(3),
      });
      const cards = second.request.cards;
      const attempts = await Promise.allSettled(
        [...cards, ...cards, ...cards].map((c, i) =>
          s.managerCards.decide({
            tenantId: t.id,
            cardId: c.cardId,
            deciderId: c.recipientId,
            decision: i % 2 === 0 ? 'approve' : 'deny',
            note: null,
            at: later(4),
          }),
        ),
      );
      expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      for (const a of attempts)
        if (a.status === 'rejected') expect(a.reason).toMatchObject({ code: 'already_decided' });
      expect((await receipts(t)).map(([seq]) => seq)).toEqual([1, 2, 3, 4]);
    });
  });
}
