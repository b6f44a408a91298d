import { describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import { decisionRefusal, effectiveStatus, type ApprovalFacts } from '../../../src/core/approval.js';

const now = new Date('2026-06-01T12:00:00.000Z');
const actor = (id: string, kind: Actor['kind'], roles: Actor['roles'] = []): Actor => ({
  tenantId: 'acme',
  id,
  kind,
  roles,
  managerId: kind === 'agent' ? 'alice' : null,
  certSubject: null,
  displayName: null,
  createdAt: now.toISOString(),
});
const pending: ApprovalFacts = {
  id: 'apr_1',
  status: 'pending',
  requesterId: 'bot',
  capability: 'pay.send',
  decidedBy: null,
  decidedAt: null,
  expiresAt: '2026-06-02T12:00:00.000Z',
};

describe('approval rules', () => {
  it('expired is computed for pending and approved approvals only', () => {
    const later = new Date('2026-06-02T12:00:00.000Z');
    expect(effectiveStatus(pending, now)).toBe('pending');
    expect(effectiveStatus(pending, later)).toBe('expired');
    expect(effectiveStatus({ ...pending, status: 'approved' }, later)).toBe('expired');
    expect(effectiveStatus({ ...pending, status: 'denied' }, later)).toBe('denied');
    expect(effectiveStatus({ ...pending, status: 'consumed' }, later)).toBe('consumed');
  });

  it('approvers and named approvers decide; never the requester, never an agent, never a bystander', () => {
    const code = (a: Actor, named: string[] = [], facts = pending) =>
      decisionRefusal(facts, a, named, now)?.code;
    expect(code(actor('bob', 'human', ['approver']))).toBeUndefined();
    expect(code(actor('carol', 'human'), ['carol'])).toBeUndefined();
    expect(code(actor('alice', 'human', ['operator', 'administrator']))).toBe('not_an_approver');
    expect(code(actor('bot2', 'agent'), ['bot2'])).toBe('not_an_approver');
    expect(code(actor('erin', 'human'))).toBe('not_found');
    // a human approver who asked is still the requester
    expect(code(actor('bob', 'human', ['approver']), [], { ...pending, requesterId: 'bob' })).toBe(
      'self_approval',
    );
    expect(code(actor('bot', 'agent'))).toBe('self_approval');
  });

  it('the first decision wins; an expired approval takes none', () => {
    const bob = actor('bob', 'human', ['approver']);
    const decided = {
      ...pending,
      status: 'denied' as const,
      decidedBy: 'carol',
      decidedAt: now.toISOString(),
    };
    const err = decisionRefusal(decided, bob, [], now);
    expect(err).toMatchObject({ kind: 'conflict', code: 'already_decided' });
    expect(err?.reason).toMatch(/already denied by carol/);
    expect(decisionRefusal({ ...pending, status: 'consumed' }, bob, [], now)?.code).toBe('already_decided');
    expect(decisionRefusal(pending, bob, [], new Date('2026-06-03T00:00:00Z'))).toMatchObject({
      kind: 'conflict',
      code: 'approval_expired',
    });
  });
});
