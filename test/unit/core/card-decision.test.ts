import { memoryOutbox } from '../../helpers/memory-outbox.js';
import type { DecisionEventOps } from '../../../src/core/notify/decision-events.js';
import { describe, expect, it } from 'vitest';
import type { AccessFacts } from '../../../src/core/access.js';
import type { Actor } from '../../../src/core/actor.js';
import {
  cardDecision,
  type CardDecisionInput,
  type CardDecisionOps,
  type CardDecisionWrite,
  type CardToDecide,
  type NewEntitlement,
} from '../../../src/core/card-decision.js';
import { runSync } from '../../../src/core/use-case.js';
import type { JournalAppend } from '../../../src/evidence/journal-append.js';

/**
 * The manager-card decision without a database: an in-memory store answers the operations
 * the use case asks for and records the writes, so every refusal is shown to write nothing.
 */

const at = new Date('2026-06-01T12:00:00.000Z');
const later = (s: number) => new Date(at.getTime() + s * 1000).toISOString();

const actor = (id: string, kind: Actor['kind']): Actor => ({
  tenantId: 'acme',
  id,
  kind,
  roles: [],
  managerId: kind === 'agent' ? 'mgr' : null,
  certSubject: null,
  displayName: null,
  createdAt: '2026-01-01T00:00:00.000Z',
});

const people = [
  actor('mgr', 'human'),
  actor('owner', 'human'),
  actor('bot', 'agent'),
  actor('bot2', 'agent'),
];

const request: AccessFacts = {
  id: 'acr_1',
  status: 'pending',
  requesterId: 'bot',
  capability: 'crm.write',
  durationSeconds: 3600,
  decision: null,
  decidedBy: null,
  entitlementExpiresAt: null,
};

const managerCard: CardToDecide = {
  card: { id: 'crd_1', recipientId: 'mgr' },
  request,
  tier: 2,
  deciders: ['mgr', 'owner'],
};

type Views = { views: string };

class MemoryCards implements CardDecisionOps<Views> {
  readonly writes: CardDecisionWrite[] = [];
  readonly grants: NewEntitlement[] = [];
  readonly journal: JournalAppend[] = [];
  /** what the guarded write finds: another writer may have changed the request since the read */
  changedRows = 1;
  readonly outbox = memoryOutbox();
  subscribers = () => this.outbox.ops.subscribers('acme');
  writeEvent = (...a: Parameters<DecisionEventOps['writeEvent']>) => this.outbox.ops.writeEvent(...a);

  constructor(private readonly cards: CardToDecide[]) {}

  actor(tenantId: string, actorId: string) {
    return people.find((p) => p.tenantId === tenantId && p.id === actorId);
  }
  card(tenantId: string, cardId: string) {
    return this.cards.find((c) => tenantId === 'acme' && c.card.id === cardId);
  }
  decide(w: CardDecisionWrite) {
    this.writes.push(w);
    return this.changedRows;
  }
  grant(e: NewEntitlement) {
    this.grants.push(e);
  }
  append(record: JournalAppend) {
    this.journal.push(record);
    return { sequence: this.journal.length + 1, receiptId: record.receiptId, recordHash: 'h' };
  }
  decided(_tenantId: string, cardId: string, entitlementId: string | null) {
    return { views: `${cardId} ${entitlementId}` };
  }
}

const input = (o: Partial<CardDecisionInput> = {}): CardDecisionInput => ({
  tenantId: 'acme',
  cardId: 'crd_1',
  deciderId: 'mgr',
  decision: 'approve',
  note: 'ok',
  at,
  ...o,
});

const decide = (store: MemoryCards, i: CardDecisionInput) => runSync(cardDecision<Views>(i), store);

/** The coded error a decision fails with, after checking it wrote nothing. */
function refusal(card: CardToDecide | undefined, i: CardDecisionInput) {
  const store = new MemoryCards(card ? [card] : []);
  let caught: unknown;
  try {
    decide(store, i);
  } catch (err) {
    caught = err;
  }
  expect([store.writes, store.grants, store.journal]).toEqual([[], [], []]);
  const { kind, code, reason, field } = caught as Record<string, unknown>;
  return { kind, code, reason, field };
}

describe('the manager-card decision use case', () => {
  it('an approval: one guarded write on the request, the entitlement for the granted time, one record', () => {
    const store = new MemoryCards([managerCard]);
    const decided = decide(store, input({ durationSeconds: 600 }));
    const entitlementId = store.grants[0]?.id;
    expect(entitlementId).toMatch(/^ent_/);
    expect(store.writes).toEqual([
      {
        tenantId: 'acme',
        requestId: 'acr_1',
        status: 'approved',
        decision: 'approve',
        decidedBy: 'mgr',
        decidedAt: at.toISOString(),
        grantedSeconds: 600,
        note: 'ok',
        entitlementId,
        expect: { status: 'pending' },
      },
    ]);
    expect(store.grants).toEqual([
      {
        tenantId: 'acme',
        id: entitlementId,
        actorId: 'bot',
        capability: 'crm.write',
        accessRequestId: 'acr_1',
        createdAt: at.toISOString(),
        expiresAt: later(600),
      },
    ]);
    const [record] = store.journal;
    expect(record).toMatchObject({
      kind: 'access',
      intentId: 'acr_1',
      actorId: 'mgr',
      tier: 2,
      allowed: true,
      occurredAt: at.toISOString(),
      record: {
        action: 'approve',
        access_request_id: 'acr_1',
        card_id: 'crd_1',
        requester_id: 'bot',
        decision: 'approve',
        duration_seconds: 3600,
        granted_seconds: 600,
        entitlement_id: entitlementId,
        expires_at: later(600),
        note: 'ok',
      },
    });
    expect(decided).toEqual({
      views: `crd_1 ${entitlementId}`,
      receipt: { receiptId: record!.receiptId, sequence: 2 },
    });
  });

  it('an approval without a duration grants the requested one; a denial grants nothing', () => {
    const approving = new MemoryCards([managerCard]);
    decide(approving, input());
    expect(approving.writes[0]?.grantedSeconds).toBe(3600);
    expect(approving.grants[0]?.expiresAt).toBe(later(3600));

    const owners = { ...managerCard, card: { id: 'crd_2', recipientId: 'owner' }, tier: null };
    const denying = new MemoryCards([owners]);
    const decided = decide(
      denying,
      input({ cardId: 'crd_2', deciderId: 'owner', decision: 'deny', note: null }),
    );
    expect(denying.writes).toMatchObject([
      { status: 'denied', decision: 'deny', grantedSeconds: null, entitlementId: null, note: null },
    ]);
    expect(denying.grants).toEqual([]);
    // a capability no longer registered is journaled at tier 0
    expect(denying.journal[0]).toMatchObject({
      allowed: false,
      tier: 0,
      record: { action: 'deny', granted_seconds: null, entitlement_id: null, expires_at: null },
    });
    expect(decided.views).toBe('crd_2 null');
  });

  it('refuses an unregistered decider, then an unknown card', () => {
    expect(refusal(undefined, input({ deciderId: 'nobody' }))).toEqual({
      kind: 'forbidden',
      code: 'forbidden',
      reason: 'nobody is not a registered actor of this tenant',
      field: undefined,
    });
    expect(refusal(undefined, input())).toEqual({
      kind: 'not_found',
      code: 'not_found',
      reason: 'no such manager card',
      field: undefined,
    });
  });

  it('refuses whom core/access.ts refuses: an agent, another recipient, the requester, a former decider', () => {
    expect(
      refusal({ ...managerCard, card: { id: 'crd_1', recipientId: 'bot2' } }, input({ deciderId: 'bot2' })),
    ).toMatchObject({
      kind: 'forbidden',
      code: 'not_a_decider',
      reason: 'only a registered human manager or owner decides access requests',
    });
    expect(refusal(managerCard, input({ deciderId: 'owner' }))).toMatchObject({
      kind: 'not_found',
      code: 'not_found',
      reason: 'no such manager card',
    });
    const own = { ...managerCard, request: { ...request, requesterId: 'mgr' } };
    expect(refusal(own, input())).toMatchObject({
      kind: 'forbidden',
      code: 'self_approval',
      reason: 'the requesting actor never decides its own access request',
    });
    expect(refusal({ ...managerCard, deciders: ['owner'] }, input())).toMatchObject({
      kind: 'forbidden',
      code: 'not_a_decider',
      reason: 'mgr is no longer the manager of bot or an owner of crm.write',
    });
  });

  it('refuses a request already decided or withdrawn: the first decision wins', () => {
    const approved = {
      ...request,
      status: 'approved' as const,
      decision: 'approve' as const,
      decidedBy: 'owner',
    };
    expect(refusal({ ...managerCard, request: approved }, input())).toMatchObject({
      kind: 'conflict',
      code: 'already_decided',
      reason: 'access request acr_1 is already approved by owner; the first decision wins',
    });
    expect(refusal({ ...managerCard, request: { ...request, status: 'revoked' } }, input())).toMatchObject({
      kind: 'conflict',
      code: 'request_revoked',
      reason: 'access request acr_1 was withdrawn',
    });
  });

  it('refuses a duration on a denial, above the requested one, or out of bounds, naming the field', () => {
    expect(refusal(managerCard, input({ decision: 'deny', durationSeconds: 600 }))).toEqual({
      kind: 'invalid_request',
      code: 'invalid_request',
      reason: 'duration_seconds: only an approval grants a duration',
      field: 'duration_seconds',
    });
    expect(refusal(managerCard, input({ durationSeconds: 3601 }))).toEqual({
      kind: 'invalid_request',
      code: 'invalid_request',
      reason: 'duration_seconds: expected at most the requested 3600 seconds',
      field: 'duration_seconds',
    });
    expect(refusal(managerCard, input({ durationSeconds: 59 }))).toEqual({
      kind: 'invalid_request',
      code: 'invalid_request',
      reason: 'duration_seconds: expected a whole number of seconds from 60 to 7776000 (90 days)',
      field: 'duration_seconds',
    });
  });

  it('fails with a coded conflict, granting and journaling nothing, when the guarded write does not change one row', () => {
    for (const changedRows of [0, 2]) {
      const store = new MemoryCards([managerCard]);
      store.changedRows = changedRows;
      expect(() => decide(store, input())).toThrow(
        expect.objectContaining({
          kind: 'conflict',
          code: 'conflict',
          reason: `the access request decision changed ${changedRows} rows, not one: the state it was decided on no longer holds; retry`,
        }),
      );
      expect(store.writes).toHaveLength(1);
      expect([store.grants, store.journal]).toEqual([[], []]);
    }
  });
});
