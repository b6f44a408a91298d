import { describe, expect, it } from 'vitest';
import {
  checkEventPattern,
  eventEnvelope,
  EVENT_TYPES,
  typeMatches,
} from '../../../../src/core/notify/event.js';

describe('event subscriptions', () => {
  it('an exact type, a family or * takes the types it names, and only those', () => {
    expect(EVENT_TYPES.filter((t) => typeMatches('approval.*', t))).toEqual([
      'approval.requested',
      'approval.decided',
      'approval.expired',
      'approval.reminder',
    ]);
    expect(EVENT_TYPES.filter((t) => typeMatches('decision.refused', t))).toEqual(['decision.refused']);
    expect(EVENT_TYPES.filter((t) => typeMatches('*', t))).toEqual([...EVENT_TYPES]);
    // a family is a whole first word: approval.* never takes a type that merely starts alike
    expect(typeMatches('access_request.*', 'access_request.created')).toBe(true);
    expect(typeMatches('access.*', 'access_request.created')).toBe(false);
  });

  it('refuses a pattern that names nothing, naming the field and what it takes', () => {
    for (const good of ['*', 'approval.*', 'budget.threshold', 'integration.surface_revoked']) {
      expect(checkEventPattern('events', good)).toBe(good);
    }
    for (const bad of [
      'approvals.*',
      'approval.requestd',
      'access.*',
      'approval.',
      '',
      '**',
      'a.b.c',
      'APPROVAL.*',
    ]) {
      expect(() => checkEventPattern('events', bad)).toThrow(
        expect.objectContaining({ code: 'invalid_request', field: 'events' }),
      );
    }
  });

  it('the envelope is {type, timestamp, data}: the id travels as the webhook-id header', () => {
    const e = {
      id: 'evt_1',
      tenantId: 'acme',
      type: 'approval.requested' as const,
      timestamp: '2026-11-27T00:00:00Z',
      data: { tenant_id: 'acme', approval_id: 'apr_1' },
    };
    expect(eventEnvelope(e)).toEqual({ type: e.type, timestamp: e.timestamp, data: e.data });
  });
});
