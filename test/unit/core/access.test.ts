import { describe, expect, it } from 'vitest';
import {
  accessRevokeRefusal,
  accessStatus,
  cardDecisionRefusal,
  cardRecipients,
  cardStatus,
  entitlementRevokeRefusal,
  entitlementStatus,
  grantedSeconds,
  type AccessFacts,
  type EntitlementFacts,
} from '../../../src/core/access.js';
import type { Actor } from '../../../src/core/actor.js';

const now = new Date('2026-06-01T12:00:00.000Z');
const actor = (
  id: string,
  kind: Actor['kind'],
  roles: Actor['roles'] = [],
  managerId: string | null = null,
): Actor => ({
  tenantId: 'acme',
  id,
  kind,
  roles,
  managerId,
  certSubject: null,
  displayName: null,
  createdAt: now.toISOString(),
});
const bot = actor('bot', 'agent', [], 'carol');
const pending: AccessFacts = {
  id: 'acr_1',
  status: 'pending',
  requesterId: 'bot',
  capability: 'crm.write',
  durationSeconds: 3600,
  decision: null,
  decidedBy: null,
  entitlementExpiresAt: null,
};
const approved: AccessFacts = {
  ...pending,
  status: 'approved',
  decision: 'approve',
  decidedBy: 'carol',
  entitlementExpiresAt: '2026-06-01T13:00:00.000Z',
};
const code = (e: { code: string } | undefined) => e?.code ?? 'ok';

describe('access request rules', () => {
  it('cards go to the manager, then the owners; never twice, never to the requester', () => {
    expect(cardRecipients(bot, ['olive', 'carol', 'bot', 'olive'])).toEqual([
      { recipientId: 'carol', role: 'manager' },
      { recipientId: 'olive', role: 'owner' },
    ]);
    expect(cardRecipients(actor('erin', 'human'), ['erin'])).toEqual([]);
  });

  it('expired is computed for approved requests whose entitlement ran out', () => {
    expect(accessStatus(approved, now)).toBe('approved');
    expect(accessStatus(approved, new Date('2026-06-01T13:00:00.000Z'))).toBe('expired');
    expect(accessStatus({ ...approved, status: 'revoked' }, new Date('2027-01-01'))).toBe('revoked');
  });

  it('a card shows its own decision, or closed when someone else decided or it was withdrawn', () => {
    expect(cardStatus(pending, 'carol')).toBe('pending');
    expect(cardStatus(approved, 'carol')).toBe('approved');
    expect(cardStatus(approved, 'olive')).toBe('closed');
    expect(cardStatus({ ...pending, status: 'revoked' }, 'olive')).toBe('closed');
    expect(cardStatus({ ...approved, status: 'revoked' }, 'carol')).toBe('approved');
  });

  it('an approval grants at most what was asked, and at least a minute', () => {
    expect(grantedSeconds(3600, undefined)).toBe(3600);
    expect(grantedSeconds(3600, 600)).toBe(600);
    expect(() => grantedSeconds(3600, 3601)).toThrow(/at most the requested 3600 seconds/);
    expect(() => grantedSeconds(3600, 59)).toThrow(/duration_seconds/);
  });

  it('only a human recipient who still decides it, never the requester, only while pending', () => {
    const card = { id: 'card_1', recipientId: 'carol' };
    const carol = actor('carol', 'human', ['manager']);
    expect(code(cardDecisionRefusal(pending, card, carol, ['carol'], now))).toBe('ok');
    expect(code(cardDecisionRefusal(pending, { ...card, recipientId: 'bot' }, bot, ['bot'], now))).toBe(
      'not_a_decider',
    );
    expect(code(cardDecisionRefusal(pending, card, actor('olive', 'human'), ['carol', 'olive'], now))).toBe(
      'not_found',
    );
    const self = actor('bot', 'human');
    expect(code(cardDecisionRefusal(pending, { ...card, recipientId: 'bot' }, self, ['bot'], now))).toBe(
      'self_approval',
    );
    expect(code(cardDecisionRefusal(pending, card, carol, ['olive'], now))).toBe('not_a_decider');
    expect(code(cardDecisionRefusal(approved, card, carol, ['carol'], now))).toBe('already_decided');
    expect(code(cardDecisionRefusal({ ...pending, status: 'revoked' }, card, carol, ['carol'], now))).toBe(
      'request_revoked',
    );
  });

  it('revoke: the requester, its deciders, operators and administrators; auditors only read', () => {
    const r = (viewer: Actor, facts = pending) => code(accessRevokeRefusal(facts, viewer, ['carol'], now));
    expect(r(bot)).toBe('ok');
    expect(r(actor('carol', 'human'))).toBe('ok');
    expect(r(actor('ops', 'human', ['operator']))).toBe('ok');
    expect(r(actor('dave', 'human', ['auditor']))).toBe('not_a_revoker');
    expect(r(actor('bot2', 'agent', [], 'carol'))).toBe('not_found');
    expect(r(bot, approved)).toBe('ok');
    expect(r(bot, { ...approved, status: 'denied' })).toBe('not_revocable');
    expect(code(accessRevokeRefusal(approved, bot, [], new Date('2026-06-02')))).toBe('not_revocable');
  });
});

describe('entitlement rules', () => {
  const e: EntitlementFacts = {
    id: 'ent_1',
    holderId: 'bot',
    capability: 'crm.write',
    expiresAt: '2026-06-01T13:00:00.000Z',
    revokedAt: null,
  };
  it('active until it expires or is revoked', () => {
    expect(entitlementStatus(e, now)).toBe('active');
    expect(entitlementStatus(e, new Date('2026-06-01T13:00:00.000Z'))).toBe('expired');
    expect(entitlementStatus({ ...e, revokedAt: now.toISOString() }, now)).toBe('revoked');
  });
  it('the holder, its overseers and operators revoke; an active one only', () => {
    const r = (viewer: Actor, facts = e) =>
      code(entitlementRevokeRefusal(facts, viewer, ['carol', 'olive'], now));
    expect(r(bot)).toBe('ok');
    expect(r(actor('olive', 'human'))).toBe('ok');
    expect(r(actor('admin', 'human', ['administrator']))).toBe('ok');
    expect(r(actor('dave', 'human', ['auditor']))).toBe('not_a_revoker');
    expect(r(actor('erin', 'human'))).toBe('not_found');
    expect(r(bot, { ...e, revokedAt: now.toISOString() })).toBe('not_revocable');
  });
});
