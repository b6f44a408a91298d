import { describe, expect, it } from 'vitest';
import { attemptChange, GONE_REASON } from '../../../../src/core/notify/delivery.js';
import { crossedThresholds } from '../../../../src/core/notify/decision-events.js';
import { emitEvent, subscribedTo } from '../../../../src/core/notify/outbox.js';
import { SubscriberCache } from '../../../../src/core/notify/subscriber-cache.js';
import { runSync } from '../../../../src/core/use-case.js';
import { memoryOutbox } from '../../../helpers/memory-outbox.js';

describe('the outbox rules', () => {
  it('routes an event to the enabled destinations whose patterns take it', () => {
    const subs = [
      { id: 'a', kind: 'webhook', events: ['approval.*'], enabled: true },
      { id: 'b', kind: 'webhook', events: ['decision.refused', 'budget.threshold'], enabled: true },
      { id: 'c', kind: 'webhook', events: ['*'], enabled: false },
      { id: 'd', kind: 'webhook', events: ['*'], enabled: true },
    ];
    expect(subscribedTo(subs, 'approval.decided')).toEqual(['a', 'd']);
    expect(subscribedTo(subs, 'decision.refused')).toEqual(['b', 'd']);
    expect(subscribedTo(subs.slice(0, 3), 'access_request.created')).toEqual([]);
  });

  it('sends the outcome to chat and collab destinations that posted the request, whatever else they take', () => {
    const subs = [
      { id: 'chat', kind: 'chat', events: ['approval.requested'], enabled: true },
      { id: 'collab', kind: 'collab', events: ['approval.*'], enabled: true },
      { id: 'hook', kind: 'webhook', events: ['approval.requested'], enabled: true },
      { id: 'mail', kind: 'email', events: ['approval.requested'], enabled: true },
      { id: 'off', kind: 'chat', events: ['approval.requested'], enabled: false },
      { id: 'other', kind: 'chat', events: ['budget.threshold'], enabled: true },
    ];
    expect(subscribedTo(subs, 'approval.decided')).toEqual(['chat', 'collab']);
    expect(subscribedTo(subs, 'approval.expired')).toEqual(['chat', 'collab']);
    expect(subscribedTo(subs, 'access_request.created')).toEqual([]);
  });

  it('sends the outcome to a chat destination that only gets escalated reminders', () => {
    const subs = [
      { id: 'mail', kind: 'email', events: ['approval.requested'], enabled: true, escalateTo: 'oncall' },
      { id: 'oncall', kind: 'chat', events: ['budget.threshold'], enabled: true },
      { id: 'quiet', kind: 'chat', events: ['budget.threshold'], enabled: true },
    ];
    expect(subscribedTo(subs, 'approval.decided')).toEqual(['oncall']);
    expect(subscribedTo([{ ...subs[0]!, enabled: false }, ...subs.slice(1)], 'approval.decided')).toEqual([]);
  });

  it('writes nothing, and builds no payload, when nobody subscribes', () => {
    const { ops, events } = memoryOutbox([
      { id: 'a', kind: 'webhook', events: ['approval.*'], enabled: true },
    ]);
    let built = 0;
    const data = () => ((built += 1), { x: 1 });
    expect(runSync(emitEvent('acme', 'decision.refused', '2026-01-01T00:00:00.000Z', data), ops)).toBeNull();
    expect([events, built]).toEqual([[], 0]);
    const id = runSync(emitEvent('acme', 'approval.expired', '2026-01-01T00:00:00.000Z', data), ops);
    expect(id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(events).toEqual([
      {
        event: {
          id,
          tenantId: 'acme',
          type: 'approval.expired',
          timestamp: '2026-01-01T00:00:00.000Z',
          data: { x: 1, tenant_id: 'acme' },
        },
        to: ['a'],
      },
    ]);
  });

  it('a reservation crosses 80 % and 100 % of the budget only on the way up, at the boundary included', () => {
    expect(crossedThresholds(100n, 0n, 79n)).toEqual([]);
    expect(crossedThresholds(100n, 0n, 80n)).toEqual([80]);
    expect(crossedThresholds(100n, 79n, 100n)).toEqual([80, 100]);
    expect(crossedThresholds(100n, 80n, 99n)).toEqual([]);
    expect(crossedThresholds(100n, 99n, 100n)).toEqual([100]);
    expect(crossedThresholds(100n, 100n, 100n)).toEqual([]);
    expect(crossedThresholds(0n, 0n, 0n)).toEqual([]);
  });

  it('an attempt sets the next state; 410 Gone disables the destination; a retry needs its time', () => {
    const at = '2026-01-01T00:00:00.000Z';
    expect(attemptChange({ outcome: 'delivered', at, nextAttemptAt: null })).toEqual({
      state: 'delivered',
      nextAttemptAt: null,
      deliveredAt: at,
      disableDestination: null,
    });
    expect(attemptChange({ outcome: 'gone', at, nextAttemptAt: null })).toMatchObject({
      state: 'disabled',
      disableDestination: GONE_REASON,
    });
    expect(GONE_REASON).toBe('410 Gone from the receiver');
    expect(() => attemptChange({ outcome: 'retry', at, nextAttemptAt: null })).toThrow(/nextAttemptAt/);
  });

  it('the subscriber cache answers only for the registry version it was filled under', () => {
    const cache = new SubscriberCache();
    cache.set('acme', 3, []);
    expect(cache.get('acme', 3)).toEqual([]);
    expect(cache.get('acme', 4)).toBeUndefined();
    expect(cache.get('other', 3)).toBeUndefined();
  });
});
