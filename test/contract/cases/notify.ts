import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import { admits } from '../../../src/core/constraints.js';
import { APPROVAL_TTL_MS } from '../../../src/core/decision/decide.js';
import { EVENT_PAYLOADS } from '../../../src/api/event-payloads.js';
import { eventEnvelope } from '../../../src/core/notify/event.js';
import { emitEvent } from '../../../src/core/notify/outbox.js';
import { PolicyCache } from '../../../src/daemon/policy-cache.js';
import type { NotifyDestination } from '../../../src/store/notify-ports.js';
import type { Store } from '../../../src/store/ports.js';
import type { StoreHarness } from '../harness.js';
import { webhookConformance } from '../../helpers/openapi-conformance.js';
import { request } from '../../helpers/pg-seed.js';
import { capabilityRecord, taskRecord } from '../../helpers/registry-records.js';
import { human, T0 } from './fixtures.js';

const publicKey = generateKeyPairSync('ed25519')
  .publicKey.export({ format: 'der', type: 'spki' })
  .subarray(-32)
  .toString('base64');
const bot: Actor = human('acme', 'bot', { kind: 'agent', roles: [], managerId: 'alice' });
const rules = () => ({ policy: new PolicyCache(), constraints: admits });
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

/** Tenant acme: alice (administrator, approver), agent bot; crm.paid (1 USD), payments.send (irreversible); task t1 of 10 USD. */
async function provision(store: Store): Promise<void> {
  await store.tenants.create({
    tenant: { id: 'acme', createdAt: T0 },
    signingKey: { tenantId: 'acme', keyId: 'k1', publicKey, algorithm: 'ed25519', createdAt: T0 },
    admin: human('acme', 'alice', { roles: ['administrator', 'approver'] }),
  });
  await store.actors.add(bot);
  for (const [name, tier, irreversible] of [
    ['crm.paid', 1, false],
    ['payments.send', 4, true],
  ] as const) {
    await store.capabilities.put(
      capabilityRecord('acme', name, T0, { tier, irreversible, actions: ['write'], costMicros: 1_000_000n }),
    );
    await store.permissions.grant({ tenantId: 'acme', actorId: 'bot', capability: name, grantedAt: T0 });
  }
  await store.policies.set('acme', 'permit (principal, action, resource);', T0);
  await store.tasks.create(taskRecord('acme', 't1', T0, { budgetMicros: 10_000_000n }));
}

function destination(id: string, events: string[], o: Partial<NotifyDestination> = {}): NotifyDestination {
  return {
    tenantId: 'acme',
    id,
    kind: 'webhook',
    url: `https://hooks.example.org/${id}`,
    events,
    secretName: `notify.${id}`,
    enabled: true,
    disabledReason: null,
    settings: {},
    remindAfterSeconds: null,
    escalateTo: null,
    createdAt: T0,
    ...o,
  };
}

/** Every event due now, claimed by `owner`: [type, destination, data]. */
async function due(store: Store, owner = 'w1', now = at(APPROVAL_TTL_MS * 3)) {
  const claimed = await store.notify.claimDue(now, owner, at(APPROVAL_TTL_MS * 4), 100);
  const documented = await webhookConformance();
  for (const c of claimed) {
    EVENT_PAYLOADS[c.event.type].parse(c.event.data);
    // and it is what the OpenAPI document's `webhooks` entry of its type describes
    expect(documented.checkWebhook(eventEnvelope(c.event))).toBeUndefined();
  }
  return claimed;
}

/** NotifyRepo: destinations, the outbox the use cases write, leased deliveries. */
export function notifyContract(h: () => StoreHarness): void {
  describe('notifications', () => {
    it('keeps destinations per tenant: a duplicate id is already_exists, removal answers whether there was one', async () => {
      const s = await h().open();
      await provision(s);
      await s.notify.addDestination(destination('b-hook', ['approval.*']));
      await s.notify.addDestination(destination('a-hook', ['*']));
      await expect(s.notify.addDestination(destination('a-hook', ['*']))).rejects.toMatchObject({
        code: 'already_exists',
      });
      expect((await s.notify.destinations('acme')).map((d) => d.id)).toEqual(['a-hook', 'b-hook']);
      expect(await s.notify.destination('acme', 'b-hook')).toEqual(destination('b-hook', ['approval.*']));
      expect(await s.notify.destination('other', 'b-hook')).toBeUndefined();
      expect(await s.notify.removeDestination('acme', 'b-hook')).toBe(true);
      expect(await s.notify.removeDestination('acme', 'b-hook')).toBe(false);
    });

    it('keeps settings, reminders and posted messages; a removed destination takes its messages with it', async () => {
      const s = await h().open();
      await provision(s);
      const chat = destination('chat', ['approval.requested'], {
        kind: 'chat',
        url: 'https://slack.com/api',
        settings: { channel: 'C0123', toApprovers: false },
        remindAfterSeconds: 1800,
        escalateTo: 'oncall',
      });
      await s.notify.addDestination(chat);
      expect(await s.notify.destination('acme', 'chat')).toEqual(chat);
      const m = (target: string, messageId: string, postedAt: string) => ({
        tenantId: 'acme',
        destinationId: 'chat',
        approvalId: 'apr_1',
        target,
        messageId,
        eventId: 'evt_1',
        postedAt,
      });
      await s.notify.saveMessage(m('U2', '1700000000.000200', T0));
      await s.notify.saveMessage(m('U1', '1700000000.000100', T0));
      await s.notify.saveMessage(m('U1', '1700000000.000100', T0));
      await s.notify.saveMessage({ ...m('U1', '9', T0), approvalId: 'apr_2' });
      expect(await s.notify.messages('acme', 'chat', 'apr_1')).toEqual([
        m('U1', '1700000000.000100', T0),
        m('U2', '1700000000.000200', T0),
      ]);
      expect(await s.notify.messages('other', 'chat', 'apr_1')).toEqual([]);
      expect(await s.notify.removeDestination('acme', 'chat')).toBe(true);
      await s.notify.addDestination(chat);
      expect(await s.notify.messages('acme', 'chat', 'apr_1')).toEqual([]);
    });

    it('names the humans with a chat user id who may decide, and whether a post of an approval is still pending', async () => {
      const s = await h().open({ clock: () => new Date(T0) });
      await provision(s);
      await s.actors.add(human('acme', 'bob', { roles: ['approver'], chatUserId: 'U_BOB' }));
      await s.actors.add(human('acme', 'carol', { roles: [], chatUserId: 'U_CAROL' }));
      await s.actors.add(human('acme', 'dave', { roles: ['approver'] }));
      await s.actors.add(human('acme', 'erin', { roles: ['manager'], chatUserId: 'U_ERIN' }));
      await s.actors.add(
        human('acme', 'svcbot', { kind: 'service', roles: ['approver'], chatUserId: 'U_SVC' }),
      );
      await s.capabilities.put(
        capabilityRecord('acme', 'payments.send', T0, {
          tier: 4,
          irreversible: true,
          actions: ['write'],
          costMicros: 1_000_000n,
          approvers: ['carol'],
        }),
      );
      const bob = { actorId: 'bob', chatUserId: 'U_BOB' };
      const carol = { actorId: 'carol', chatUserId: 'U_CAROL' };
      // the approver role, or named by the capability; a human; never the requester
      expect(await s.notify.chatApprovers('acme', 'payments.send', 'bot')).toEqual([bob, carol]);
      expect(await s.notify.chatApprovers('acme', 'crm.paid', 'bot')).toEqual([bob]);
      expect(await s.notify.chatApprovers('acme', 'payments.send', 'bob')).toEqual([carol]);

      await s.notify.addDestination(
        destination('chat', ['approval.requested'], {
          kind: 'chat',
          url: 'https://slack.com/api',
          settings: { channel: 'C0123', toApprovers: false },
        }),
      );
      await s.notify.addDestination(destination('hook', ['approval.requested']));
      const d1 = await s.decisions.decide(request('payments.send', 't1', 'p1', 2), bot, 'new', rules());
      const approvalId = (d1 as { approval: { approvalId: string } }).approval.approvalId;
      expect(await s.notify.postPending('acme', 'chat', approvalId)).toBe(true);
      expect(await s.notify.postPending('acme', 'chat', 'apr_another')).toBe(false);
      expect(await s.notify.postPending('acme', 'absent', approvalId)).toBe(false);
      const claimed = await due(s);
      for (const c of claimed) {
        if (c.destination.id !== 'chat') continue;
        await s.notify.recordAttempt({
          tenantId: 'acme',
          eventId: c.event.id,
          destinationId: 'chat',
          owner: 'w1',
          at: at(1000),
          outcome: 'delivered',
          status: 200,
          error: null,
          nextAttemptAt: null,
        });
      }
      expect(await s.notify.postPending('acme', 'chat', approvalId)).toBe(false);
      // the webhook's delivery of the same approval is still pending: not a post of this destination
      expect(await s.notify.postPending('acme', 'hook', approvalId)).toBe(true);
    });

    it('writes nothing when no destination subscribes', async () => {
      const s = await h().open({ clock: () => new Date(T0) });
      await provision(s);
      await s.notify.addDestination(destination('access', ['access_request.*']));
      await s.decisions.decide(request('payments.send', 't1', 'p1', 2), bot, 'new', rules());
      await s.decisions.decide(request('crm.paid', 'none', 'x'), bot, 'new', rules());
      expect(await s.notify.deliveries('acme', { limit: 10 })).toEqual([]);
      expect(await s.notify.counts()).toEqual({ pending: 0, dead: 0, disabled: 0 });
    });

    it('a deferral, its decision, a refusal and its expiry each write their event with the change, to each subscriber', async () => {
      const s = await h().open({ clock: () => new Date(T0) });
      await provision(s);
      await s.notify.addDestination(destination('approvals', ['approval.*']));
      await s.notify.addDestination(destination('all', ['*']));
      await s.notify.addDestination(destination('off', ['*'], { enabled: false, disabledReason: 'test' }));
      const d1 = await s.decisions.decide(request('payments.send', 't1', 'p1', 2), bot, 'new', rules());
      const d2 = await s.decisions.decide(request('payments.send', 't1', 'p2', 3), bot, 'new', rules());
      await s.decisions.decide(request('crm.paid', 'none', 'x'), bot, 'new', rules());
      const approvalId = (d1 as { approval: { approvalId: string } }).approval.approvalId;
      await s.approvals.decide({
        tenantId: 'acme',
        approvalId,
        deciderId: 'alice',
        decision: 'deny',
        note: 'not this one',
        channel: 'cli',
        at: new Date(at(1000)),
      });
      // the second approval expires pending: the sweep announces it once
      expect(await s.notify.announceExpired(new Date(at(APPROVAL_TTL_MS + 1000)), 10)).toBe(1);
      expect(await s.notify.announceExpired(new Date(at(APPROVAL_TTL_MS + 2000)), 10)).toBe(0);

      const claimed = await due(s);
      const seen = claimed.map((c) => [c.event.type, c.destination.id]).sort();
      expect(seen).toEqual(
        [
          ['approval.decided', 'all'],
          ['approval.decided', 'approvals'],
          ['approval.expired', 'all'],
          ['approval.expired', 'approvals'],
          ['approval.requested', 'all'],
          ['approval.requested', 'all'],
          ['approval.requested', 'approvals'],
          ['approval.requested', 'approvals'],
          ['decision.refused', 'all'],
        ].sort(),
      );
      const one = (type: string) => claimed.find((c) => c.event.type === type && c.destination.id === 'all')!;
      expect(one('approval.decided').event.data).toMatchObject({
        tenant_id: 'acme',
        approval_id: approvalId,
        status: 'denied',
        decided_by: 'alice',
        channel: 'cli',
        amount_usd: 2,
        requester_id: 'bot',
        intent: 'write p1',
      });
      expect(JSON.stringify(one('approval.decided').event.data)).not.toContain('not this one');
      expect(one('approval.expired').event.data).toMatchObject({
        approval_id: (d2 as { approval: { approvalId: string } }).approval.approvalId,
        status: 'expired',
      });
      expect(one('decision.refused').event.data).toMatchObject({ capability: 'crm.paid', actor_id: 'bot' });
      // one event id per event, the same for every destination
      const ids = claimed.filter((c) => c.event.type === 'approval.decided').map((c) => c.event.id);
      expect(new Set(ids).size).toBe(1);
      expect(ids[0]).toMatch(/^evt_/);
    });

    it('a refusal is staged: pending at once, fanned out by the claim with the payload of the refused intent', async () => {
      const s = await h().open({ clock: () => new Date(T0) });
      await provision(s);
      for (const id of ['a', 'b', 'gone'])
        await s.notify.addDestination(destination(id, ['decision.refused']));
      const refused = await s.decisions.decide(request('crm.paid', 't1', 'r1', 11), bot, 'new', rules());
      expect(refused).toMatchObject({ outcome: 'refused', code: 'budget_exceeded' });
      const sealed = refused as { intentId: string; receipt: { receiptId: string } };
      const listed = await s.notify.deliveries('acme', { limit: 10 });
      expect(listed.map((d) => [d.destinationId, d.eventType, d.state, d.attempts])).toEqual([
        ['gone', 'decision.refused', 'pending', 0],
        ['b', 'decision.refused', 'pending', 0],
        ['a', 'decision.refused', 'pending', 0],
      ]);
      expect(new Set(listed.map((d) => d.eventId)).size).toBe(1);
      expect(await s.notify.counts('acme')).toEqual({ pending: 3, dead: 0, disabled: 0 });
      expect(await s.notify.deliveries('acme', { limit: 10, state: 'dead' })).toEqual([]);
      expect(await s.notify.deliveries('acme', { limit: 10, destinationId: 'a' })).toHaveLength(1);

      // removed before the loop fans it out: a disabled delivery, as a pending one becomes
      expect(await s.notify.removeDestination('acme', 'gone')).toBe(true);
      const claimed = await due(s);
      expect(claimed.map((c) => c.destination.id).sort()).toEqual(['a', 'b']);
      expect(claimed.map((c) => c.event.id)).toEqual([listed[0]!.eventId, listed[0]!.eventId]);
      expect(claimed[0]!.event.timestamp).toBe(listed[0]!.createdAt);
      expect(claimed[0]!.event.data).toEqual({
        receipt_id: sealed.receipt.receiptId,
        intent_id: sealed.intentId,
        task_id: 't1',
        effect_key_step: 'r1',
        actor_id: 'bot',
        capability: 'crm.paid',
        action: 'write',
        code: 'budget_exceeded',
        reason: expect.stringContaining('task t1 has'),
        amount_usd: 11,
        currency: 'USD',
        request_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        decided_at: listed[0]!.createdAt,
        tenant_id: 'acme',
      });
      const after = await s.notify.deliveries('acme', { limit: 10 });
      expect(after.map((d) => [d.destinationId, d.state, d.lastError])).toEqual([
        ['gone', 'disabled', 'destination removed'],
        ['b', 'pending', null],
        ['a', 'pending', null],
      ]);
      expect(await s.notify.counts('acme')).toEqual({ pending: 2, dead: 0, disabled: 0 });
    });

    it("announces a task's 80 % and 100 % budget thresholds once each", async () => {
      const s = await h().open({ clock: () => new Date(T0) });
      await provision(s);
      await s.notify.addDestination(destination('budget', ['budget.threshold']));
      for (const [step, usd] of [
        ['a', 7],
        ['b', 1],
        ['c', 2],
      ] as const) {
        expect(
          await s.decisions.decide(request('crm.paid', 't1', step, usd), bot, 'new', rules()),
        ).toMatchObject({
          outcome: 'allowed',
        });
      }
      const claimed = await due(s);
      expect(claimed.map((c) => [c.event.data.threshold_percent, c.event.data.reserved_usd])).toEqual([
        [80, 8],
        [100, 10],
      ]);
    });

    it('an access request, its card decision, the entitlement and a surface revoked each announce themselves', async () => {
      const s = await h().open({ clock: () => new Date(T0) });
      await provision(s);
      await s.actors.add(human('acme', 'owner', { roles: [] }));
      await s.capabilities.put(
        capabilityRecord('acme', 'crm.write', T0, {
          tier: 2,
          actions: ['write'],
          requestable: true,
          owners: ['owner'],
        }),
      );
      await s.notify.addDestination(
        destination('access', ['access_request.created', 'manager_card.*', 'entitlement.*', 'integration.*']),
      );
      const { request: r } = await s.accessRequests.request({
        tenantId: 'acme',
        actorId: 'bot',
        capability: 'crm.write',
        reason: 'quarterly import (private)',
        durationSeconds: 3600,
        at: new Date(T0),
      });
      const decided = await s.managerCards.decide({
        tenantId: 'acme',
        cardId: r.cards.find((c) => c.recipientId === 'owner')!.cardId,
        deciderId: 'owner',
        decision: 'approve',
        note: 'private card note',
        at: new Date(T0),
      });
      const alice = human('acme', 'alice', { roles: ['administrator'] });
      await s.entitlements.revoke(alice, decided.entitlement!.id, 'private revocation note', new Date(T0));
      await s.surfaces.revoke('acme', 'crm', { documentRef: 'env:CRM_SECRET_REF', actor: alice });
      const claimed = await due(s);
      const data = (type: string) => claimed.find((c) => c.event.type === type)!.event.data;
      expect(claimed.map((c) => c.event.type).sort()).toEqual([
        'access_request.created',
        'entitlement.revoked',
        'integration.surface_revoked',
        'manager_card.decided',
      ]);
      expect(data('access_request.created')).toMatchObject({
        access_request_id: r.id,
        requester_id: 'bot',
        capability: 'crm.write',
      });
      expect(data('manager_card.decided')).toMatchObject({
        access_request_id: r.id,
        status: 'approved',
        decided_by: 'owner',
        entitlement_id: decided.entitlement!.id,
      });
      expect(data('entitlement.revoked')).toMatchObject({
        entitlement_id: decided.entitlement!.id,
        holder_id: 'bot',
        revoked_by: 'alice',
      });
      expect(data('integration.surface_revoked')).toMatchObject({ surface_id: 'crm', revoked_by: 'alice' });
      // what people typed and credential references stay out
      const all = JSON.stringify(claimed.map((c) => c.event.data));
      for (const kept of ['quarterly', 'private card note', 'private revocation note', 'CRM_SECRET_REF']) {
        expect(all).not.toContain(kept);
      }
    });

    it('leases each due delivery to one owner; an attempt is recorded only under a held lease', async () => {
      const s = await h().open({ clock: () => new Date(T0) });
      await provision(s);
      await s.notify.addDestination(destination('hook', ['approval.requested']));
      await s.decisions.decide(request('payments.send', 't1', 'p1', 2), bot, 'new', rules());
      const [c] = await s.notify.claimDue(at(1000), 'w1', at(61_000), 10);
      expect(c!.delivery).toMatchObject({ state: 'pending', attempts: 0, destinationId: 'hook' });
      expect(await s.notify.claimDue(at(2000), 'w2', at(62_000), 10)).toEqual([]);
      const key = { tenantId: 'acme', eventId: c!.event.id, destinationId: 'hook' };
      const attempt = { ...key, status: 500, error: 'status_500', outcome: 'retry' as const };
      // not the owner: nothing written
      expect(
        await s.notify.recordAttempt({ ...attempt, owner: 'w2', at: at(3000), nextAttemptAt: at(9000) }),
      ).toBe(false);
      // the lease ran out and another took it over
      const [again] = await s.notify.claimDue(at(61_000), 'w2', at(121_000), 10);
      expect(again!.event.id).toBe(c!.event.id);
      expect(
        await s.notify.recordAttempt({ ...attempt, owner: 'w1', at: at(62_000), nextAttemptAt: at(99_000) }),
      ).toBe(false);
      expect(
        await s.notify.recordAttempt({ ...attempt, owner: 'w2', at: at(63_000), nextAttemptAt: at(90_000) }),
      ).toBe(true);
      const [d] = await s.notify.deliveries('acme', { limit: 10 });
      expect(d).toMatchObject({
        state: 'pending',
        attempts: 1,
        lastStatus: 500,
        lastError: 'status_500',
        nextAttemptAt: at(90_000),
      });
      // not due before its time; then dead, counted, redelivered with the same event id
      expect(await s.notify.claimDue(at(80_000), 'w3', at(140_000), 10)).toEqual([]);
      const [third] = await s.notify.claimDue(at(90_000), 'w3', at(150_000), 10);
      expect(
        await s.notify.recordAttempt({
          ...key,
          owner: 'w3',
          at: at(91_000),
          outcome: 'dead',
          status: 500,
          error: 'status_500',
          nextAttemptAt: null,
        }),
      ).toBe(true);
      expect(third!.event.id).toBe(c!.event.id);
      expect(await s.notify.counts()).toEqual({ pending: 0, dead: 1, disabled: 0 });
      // per tenant (the console's page): this tenant's, and nothing of it counted for another
      expect(await s.notify.counts('acme')).toEqual({ pending: 0, dead: 1, disabled: 0 });
      expect(await s.notify.counts('globex')).toEqual({ pending: 0, dead: 0, disabled: 0 });
      expect(await s.notify.redeliver('acme', c!.event.id, 'hook', at(100_000))).toBe(true);
      expect(await s.notify.redeliver('acme', c!.event.id, 'hook', at(100_000))).toBe(false);
      const [fourth] = await s.notify.claimDue(at(100_000), 'w4', at(160_000), 10);
      expect(fourth!.event.id).toBe(c!.event.id);
      expect(
        await s.notify.recordAttempt({
          ...key,
          owner: 'w4',
          at: at(101_000),
          outcome: 'delivered',
          status: 204,
          error: null,
          nextAttemptAt: null,
        }),
      ).toBe(true);
      expect((await s.notify.deliveries('acme', { limit: 10, state: 'delivered' }))[0]).toMatchObject({
        deliveredAt: at(101_000),
        attempts: 1,
      });
    });

    it('two stores on one database claiming at once never lease the same delivery', async () => {
      const s = await h().open({ clock: () => new Date(T0) });
      await provision(s);
      await s.notify.addDestination(destination('a', ['approval.requested']));
      await s.notify.addDestination(destination('b', ['approval.requested']));
      for (const step of ['p1', 'p2', 'p3', 'p4', 'p5']) {
        await s.decisions.decide(request('payments.send', 't1', step, 1), bot, 'new', rules());
      }
      const other = await h().reopen(s);
      const [one, two] = await Promise.all([
        s.notify.claimDue(at(1000), 'r1', at(61_000), 6),
        other.notify.claimDue(at(1000), 'r2', at(61_000), 6),
      ]);
      const keys = [...one, ...two].map((c) => `${c.event.id}/${c.destination.id}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys).toHaveLength(10);
      expect(await other.notify.claimDue(at(2000), 'r3', at(62_000), 10)).toEqual([]);
    });

    it('410 Gone disables the destination and ends its other deliveries; removal ends them too', async () => {
      const s = await h().open({ clock: () => new Date(T0) });
      await provision(s);
      await s.notify.addDestination(destination('gone', ['approval.requested']));
      await s.notify.addDestination(destination('removed', ['approval.requested']));
      await s.decisions.decide(request('payments.send', 't1', 'p1', 2), bot, 'new', rules());
      await s.decisions.decide(request('payments.send', 't1', 'p2', 2), bot, 'new', rules());
      const claimed = await s.notify.claimDue(at(1000), 'w1', at(61_000), 1);
      expect(claimed).toHaveLength(1);
      const c = claimed[0]!;
      expect(
        await s.notify.recordAttempt({
          tenantId: 'acme',
          eventId: c.event.id,
          destinationId: c.destination.id,
          owner: 'w1',
          at: at(2000),
          outcome: 'gone',
          status: 410,
          error: 'status_410',
          nextAttemptAt: null,
        }),
      ).toBe(true);
      const other = c.destination.id === 'gone' ? 'removed' : 'gone';
      expect(await s.notify.destination('acme', c.destination.id)).toMatchObject({
        enabled: false,
        disabledReason: '410 Gone from the receiver',
      });
      expect(await s.notify.removeDestination('acme', other)).toBe(true);
      const states = (await s.notify.deliveries('acme', { limit: 10 })).map((d) => d.state);
      expect(states).toEqual(['disabled', 'disabled', 'disabled', 'disabled']);
      expect(await s.notify.claimDue(at(3000), 'w1', at(63_000), 10)).toEqual([]);
      expect(await s.notify.counts()).toEqual({ pending: 0, dead: 0, disabled: 1 });
      expect(await s.notify.counts('acme')).toEqual({ pending: 0, dead: 0, disabled: 1 });
      expect(await s.notify.counts('globex')).toEqual({ pending: 0, dead: 0, disabled: 0 });
    });

    it('pages one delivery at a time through an event sent to two destinations, missing none', async () => {
      const s = await h().open({ clock: () => new Date(T0) });
      await provision(s);
      await s.notify.addDestination(destination('hook-a', ['approval.requested']));
      await s.notify.addDestination(destination('hook-b', ['approval.requested']));
      for (const step of ['p1', 'p2']) {
        await s.decisions.decide(request('payments.send', 't1', step, 1), bot, 'new', rules());
      }
      const all = await s.notify.deliveries('acme', { limit: 10 });
      expect(all).toHaveLength(4);
      const walked: typeof all = [];
      let before: { createdAt: string; eventId: string; destinationId: string } | undefined;
      for (;;) {
        const page = await s.notify.deliveries('acme', { limit: 1, ...(before ? { before } : {}) });
        if (page.length === 0) break;
        walked.push(...page);
        const last = page[page.length - 1]!;
        before = { createdAt: last.createdAt, eventId: last.eventId, destinationId: last.destinationId };
      }
      expect(walked.map((d) => `${d.eventId}/${d.destinationId}`)).toEqual(
        all.map((d) => `${d.eventId}/${d.destinationId}`),
      );
    });

    it('pages deliveries newest first and purges old dead letters', async () => {
      const s = await h().open({ clock: () => new Date(T0) });
      await provision(s);
      await s.notify.addDestination(destination('hook', ['approval.requested']));
      for (const step of ['p1', 'p2', 'p3']) {
        await s.decisions.decide(request('payments.send', 't1', step, 1), bot, 'new', rules());
      }
      const all = await s.notify.deliveries('acme', { limit: 10 });
      expect(all).toHaveLength(3);
      const page = await s.notify.deliveries('acme', {
        limit: 10,
        before: {
          createdAt: all[0]!.createdAt,
          eventId: all[0]!.eventId,
          destinationId: all[0]!.destinationId,
        },
      });
      expect(page.map((d) => d.eventId)).toEqual(all.slice(1).map((d) => d.eventId));
      for (const c of await s.notify.claimDue(at(1000), 'w1', at(61_000), 10)) {
        await s.notify.recordAttempt({
          tenantId: 'acme',
          eventId: c.event.id,
          destinationId: 'hook',
          owner: 'w1',
          at: at(2000),
          outcome: 'dead',
          status: null,
          error: 'timeout',
          nextAttemptAt: null,
        });
      }
      expect(await s.notify.purgeFinished(at(1000))).toBe(0);
      expect(await s.notify.purgeFinished(at(3000))).toBe(3);
      expect(await s.notify.deliveries('acme', { limit: 10 })).toEqual([]);
    });

    it('purges finished deliveries once kept 30 days, never a pending one, and the events left with none', async () => {
      const s = await h().open({ clock: () => new Date(T0) });
      await provision(s);
      await s.notify.addDestination(destination('a', ['*']));
      await s.notify.addDestination(destination('b', ['*']));
      const id = await s.notify.runOutbox(
        emitEvent('acme', 'attestation.failed', at(0), () => ({ tree_size: 1 })),
      );
      for (const c of await s.notify.claimDue(at(1000), 'w1', at(61_000), 10)) {
        if (c.destination.id !== 'a') continue;
        await s.notify.recordAttempt({
          tenantId: 'acme',
          eventId: c.event.id,
          destinationId: 'a',
          owner: 'w1',
          at: at(2000),
          outcome: 'delivered',
          status: 204,
          error: null,
          nextAttemptAt: null,
        });
      }
      const states = async () =>
        (await s.notify.deliveries('acme', { limit: 10 })).map((d) => [d.destinationId, d.state]).sort();
      expect(await states()).toEqual([
        ['a', 'delivered'],
        ['b', 'pending'],
      ]);
      expect(await s.notify.purgeFinished(at(2000))).toBe(0);
      // The delivered one goes; the pending one stays, and keeps its event.
      expect(await s.notify.purgeFinished(at(3000))).toBe(1);
      expect(await states()).toEqual([['b', 'pending']]);
      expect(await s.notify.purgeFinished('2999-01-01T00:00:00.000Z')).toBe(0);
      // Removed, its delivery ends disabled, and is purged in its turn with the event.
      await s.notify.removeDestination('acme', 'b');
      expect(await states()).toEqual([['b', 'disabled']]);
      expect(await s.notify.purgeFinished('2999-01-01T00:00:00.000Z')).toBe(1);
      expect(await states()).toEqual([]);
      expect(id).toMatch(/^evt_/);
      expect(await s.notify.redeliver('acme', id!, 'a', at(4000))).toBe(false);
    });

    describe('reminders', () => {
      const approvalOf = (d: unknown) => (d as { approval: { approvalId: string } }).approval.approvalId;
      const reminders = async (s: Store) =>
        (await due(s))
          .filter((c) => c.event.type === 'approval.reminder')
          .map((c) => ({
            to: c.destination.id,
            approval: c.event.data.approval_id,
            escalated: c.event.data.escalated,
            pending: c.event.data.pending_seconds,
          }))
          .sort((x, y) => `${x.to}${String(x.approval)}`.localeCompare(`${y.to}${String(y.approval)}`));

      it('reminds each destination once its delay has passed, once per approval, and escalates the same event', async () => {
        const s = await h().open({ clock: () => new Date(T0) });
        await provision(s);
        await s.notify.addDestination(
          destination('remind', ['approval.requested'], { remindAfterSeconds: 60, escalateTo: 'oncall' }),
        );
        // the escalation target takes the reminder whatever it subscribed to
        await s.notify.addDestination(destination('oncall', ['budget.threshold']));
        await s.notify.addDestination(destination('late', ['approval.*'], { remindAfterSeconds: 3600 }));
        await s.notify.addDestination(destination('quiet', ['approval.*']));
        // reminds, but would not receive approval.requested: never reminded
        await s.notify.addDestination(
          destination('refusals', ['decision.refused'], { remindAfterSeconds: 60 }),
        );
        await s.notify.addDestination(
          destination('off', ['*'], { remindAfterSeconds: 60, enabled: false, disabledReason: 'test' }),
        );
        const id = approvalOf(
          await s.decisions.decide(request('payments.send', 't1', 'p1', 2), bot, 'new', rules()),
        );

        expect(await s.notify.announceReminders(new Date(at(59_000)), 10)).toBe(0);
        expect(await s.notify.announceReminders(new Date(at(61_000)), 10)).toBe(1);
        expect(await s.notify.announceReminders(new Date(at(62_000)), 10)).toBe(0);
        expect(await s.notify.announceReminders(new Date(at(3_601_000)), 10)).toBe(1);
        expect(await s.notify.announceReminders(new Date(at(3_700_000)), 10)).toBe(0);

        expect(await reminders(s)).toEqual([
          { to: 'late', approval: id, escalated: false, pending: 3601 },
          { to: 'oncall', approval: id, escalated: true, pending: 61 },
          { to: 'remind', approval: id, escalated: false, pending: 61 },
        ]);
        const claimed = (await s.notify.deliveries('acme', { limit: 50 })).filter(
          (d) => d.eventType === 'approval.reminder',
        );
        expect(claimed).toHaveLength(3);
      });

      it('does not remind of an approval decided or expired', async () => {
        const s = await h().open({ clock: () => new Date(T0) });
        await provision(s);
        await s.notify.addDestination(destination('remind', ['approval.*'], { remindAfterSeconds: 60 }));
        const decided = approvalOf(
          await s.decisions.decide(request('payments.send', 't1', 'p1', 2), bot, 'new', rules()),
        );
        const open = approvalOf(
          await s.decisions.decide(request('payments.send', 't1', 'p2', 3), bot, 'new', rules()),
        );
        await s.approvals.decide({
          tenantId: 'acme',
          approvalId: decided,
          deciderId: 'alice',
          decision: 'approve',
          note: null,
          channel: 'cli',
          at: new Date(at(1000)),
        });
        // past its expiry the open one is no longer reminded either
        expect(await s.notify.announceReminders(new Date(at(APPROVAL_TTL_MS + 1000)), 10)).toBe(0);
        expect(await s.notify.announceReminders(new Date(at(61_000)), 10)).toBe(1);
        expect(await reminders(s)).toEqual([{ to: 'remind', approval: open, escalated: false, pending: 61 }]);
      });

      it('skips a removed destination, one added after the request, and an escalation target that is disabled or does not exist', async () => {
        const s = await h().open({ clock: () => new Date(T0) });
        await provision(s);
        await s.notify.addDestination(
          destination('r1', ['approval.requested'], { remindAfterSeconds: 60, escalateTo: 'nobody' }),
        );
        await s.notify.addDestination(
          destination('r2', ['approval.requested'], { remindAfterSeconds: 60, escalateTo: 'offcall' }),
        );
        await s.notify.addDestination(
          destination('offcall', ['approval.requested'], { enabled: false, disabledReason: 'test' }),
        );
        await s.notify.addDestination(destination('r3', ['approval.requested'], { remindAfterSeconds: 60 }));
        const id = approvalOf(
          await s.decisions.decide(request('payments.send', 't1', 'p1', 2), bot, 'new', rules()),
        );
        expect(await s.notify.removeDestination('acme', 'r3')).toBe(true);
        // added after the approval was requested: it was never sent it, so it is not reminded of it
        await s.notify.addDestination(
          destination('r4', ['approval.requested'], { remindAfterSeconds: 60, createdAt: at(1000) }),
        );
        expect(await s.notify.announceReminders(new Date(at(61_000)), 10)).toBe(2);
        expect(await reminders(s)).toEqual([
          { to: 'r1', approval: id, escalated: false, pending: 61 },
          { to: 'r2', approval: id, escalated: false, pending: 61 },
        ]);
      });

      it('two sweeps at once, on two connections, remind each pair once', async () => {
        const s = await h().open({ clock: () => new Date(T0) });
        await provision(s);
        await s.notify.addDestination(
          destination('remind', ['approval.requested'], { remindAfterSeconds: 60, escalateTo: 'oncall' }),
        );
        await s.notify.addDestination(destination('oncall', ['approval.requested']));
        const ids: string[] = [];
        for (const step of ['p1', 'p2', 'p3', 'p4', 'p5', 'p6']) {
          ids.push(
            approvalOf(
              await s.decisions.decide(request('payments.send', 't1', step, 1), bot, 'new', rules()),
            ),
          );
        }
        const s2 = await h().reopen(s, { clock: () => new Date(T0) });
        const now = new Date(at(61_000));
        const sweep = async (store: Store) => {
          let n = 0;
          for (let m = -1; m !== 0; n += m) m = await store.notify.announceReminders(now, 2);
          return n;
        };
        const [a, b] = await Promise.all([sweep(s), sweep(s2)]);
        expect(a + b).toBe(6);
        const got = await reminders(s);
        expect(
          got
            .filter((r) => r.to === 'remind')
            .map((r) => r.approval)
            .sort(),
        ).toEqual([...ids].sort());
        expect(
          got
            .filter((r) => r.to === 'oncall')
            .map((r) => r.approval)
            .sort(),
        ).toEqual([...ids].sort());
        expect(got.every((r) => r.escalated === (r.to === 'oncall'))).toBe(true);
      });
    });
  });
}
