import { memoryOutbox } from '../../helpers/memory-outbox.js';
import { describe, expect, it } from 'vitest';
import {
  accessRequest,
  requestWithdrawal,
  type AccessRequestOps,
  type NewAccessRequest,
  type Requestable,
  type StoredRequest,
} from '../../../src/core/access-request.js';
import type { Actor } from '../../../src/core/actor.js';
import type { AccessJournalInput } from '../../../src/core/records/access-record.js';
import { runSync } from '../../../src/core/use-case.js';
import { beforeOp, thrown } from '../../helpers/op-race.js';
import { actorRecord } from '../../helpers/registry-records.js';

const T0 = new Date('2026-06-01T12:00:00.000Z');
const AT = T0.toISOString();

const actor = (id: string, kind: Actor['kind'], o: Partial<Actor> = {}): Actor =>
  actorRecord('acme', id, AT, { kind, ...o });

/**
 * One tenant in memory, answering the operations as the stores do: guarded revocations
 * change a row only where it still holds the state they expect.
 */
function tenant() {
  const actors = new Map<string, Actor>(
    [
      actor('bot', 'agent', { managerId: 'mgr' }),
      actor('mgr', 'human'),
      actor('owner', 'human'),
      actor('svc-owner', 'service'),
      actor('orphan', 'agent'),
      actor('op', 'human', { roles: ['operator'] }),
      actor('auditor', 'human', { roles: ['auditor'] }),
      actor('stranger', 'agent'),
    ].map((a) => [a.id, a]),
  );
  const capabilities = new Map<string, Requestable>([
    ['crm.write', { requestable: true, owners: ['owner', 'svc-owner', 'ghost'], tier: 2 }],
    ['hidden', { requestable: false, owners: ['owner'], tier: 1 }],
    ['unowned', { requestable: true, owners: ['svc-owner', 'ghost'], tier: 1 }],
  ]);
  const holds = new Set<string>();
  const requests = new Map<string, StoredRequest>();
  const entitlements = new Map<string, { revokedBy: string | null; revokedAt: string | null }>();
  const cards: { requestId: string; recipientId: string; role: string }[] = [];
  const journal: AccessJournalInput[] = [];
  const ops: AccessRequestOps = {
    ...memoryOutbox().ops,
    actor: (_t, id) => actors.get(id),
    requestable: (_t, capability) => capabilities.get(capability),
    standing: (_t, actorId, capability) => ({
      held: holds.has(`${actorId} ${capability}`),
      pendingId: [...requests.values()].find(
        (r) => r.requesterId === actorId && r.capability === capability && r.status === 'pending',
      )?.id,
    }),
    humans: (_t, ids) => ids.filter((id) => actors.get(id)?.kind === 'human'),
    openRequest: (o) => {
      requests.set(o.id, {
        id: o.id,
        status: 'pending',
        requesterId: o.actorId,
        capability: o.capability,
        durationSeconds: o.durationSeconds,
        decision: null,
        decidedBy: null,
        entitlementExpiresAt: null,
        entitlementId: null,
        tier: capabilities.get(o.capability)!.tier,
        deciders: o.cards.map((c) => c.recipientId),
      });
      cards.push(...o.cards.map((c) => ({ requestId: o.id, recipientId: c.recipientId, role: c.role })));
    },
    request: (_t, id) => requests.get(id),
    revokeRequest: (_t, id, expected) => {
      const r = requests.get(id);
      if (r?.status !== expected) return 0;
      requests.set(id, { ...r, status: 'revoked' });
      return 1;
    },
    revokeEntitlement: (_t, id, by, at) => {
      const e = entitlements.get(id);
      if (!e || e.revokedAt !== null) return 0;
      entitlements.set(id, { revokedBy: by, revokedAt: at });
      return 1;
    },
    appendAccess: (entry) => {
      journal.push(entry);
      return { receiptId: `rcp_${journal.length}`, sequence: journal.length };
    },
  };
  /** An approved request with its live entitlement, decided by the manager. */
  const approved = (id = 'acr_ok', expiresAt = '2026-06-01T13:00:00.000Z') => {
    requests.set(id, {
      id,
      status: 'approved',
      requesterId: 'bot',
      capability: 'crm.write',
      durationSeconds: 3600,
      decision: 'approve',
      decidedBy: 'mgr',
      entitlementExpiresAt: expiresAt,
      entitlementId: `ent_${id}`,
      tier: 2,
      deciders: ['mgr', 'owner'],
    });
    entitlements.set(`ent_${id}`, { revokedBy: null, revokedAt: null });
    return id;
  };
  return { actors, holds, requests, entitlements, cards, journal, ops, approved };
}

const ask = (o: Partial<NewAccessRequest> = {}): NewAccessRequest => ({
  tenantId: 'acme',
  actorId: 'bot',
  capability: 'crm.write',
  reason: 'quarterly import',
  durationSeconds: 3600,
  at: T0,
  ...o,
});

describe('opening an access request (core/access-request.ts)', () => {
  it('opens it with a card for each human decider and seals one journal record', () => {
    const t = tenant();
    const { id, receipt } = runSync(accessRequest(ask()), t.ops);
    expect(id).toMatch(/^acr_/);
    expect(receipt).toEqual({ receiptId: 'rcp_1', sequence: 1 });
    // the manager first, then the owners; a service owner and an unregistered one get no card
    expect(t.cards).toEqual([
      { requestId: id, recipientId: 'mgr', role: 'manager' },
      { requestId: id, recipientId: 'owner', role: 'owner' },
    ]);
    expect(t.requests.get(id)).toMatchObject({
      status: 'pending',
      requesterId: 'bot',
      durationSeconds: 3600,
    });
    expect(t.journal).toEqual([
      {
        tenantId: 'acme',
        step: 'requested',
        actorId: 'bot',
        subjectId: id,
        capability: 'crm.write',
        tier: 2,
        at: AT,
        fields: {
          access_request_id: id,
          requester_id: 'bot',
          access_reason: 'quarterly import',
          duration_seconds: 3600,
          recipients: ['mgr', 'owner'],
        },
      },
    ]);
  });

  const CATALOGUE = 'GET /v1/catalogue lists the capabilities you can request';
  const refusals: [string, (t: ReturnType<typeof tenant>) => NewAccessRequest, Record<string, unknown>][] = [
    [
      'an unregistered requester',
      () => ask({ actorId: 'ghost' }),
      { code: 'forbidden', reason: 'ghost is not a registered actor of this tenant' },
    ],
    [
      'a capability that is not registered',
      () => ask({ capability: 'crm.delete' }),
      {
        code: 'not_in_catalogue',
        kind: 'forbidden',
        reason: 'crm.delete is not in your catalogue: no such capability is registered',
        field: 'capability',
        remedy: CATALOGUE,
      },
    ],
    [
      'a capability that is not requestable',
      () => ask({ capability: 'hidden' }),
      {
        code: 'not_in_catalogue',
        reason: 'hidden is not in your catalogue: it is not requestable',
        field: 'capability',
        remedy: CATALOGUE,
      },
    ],
    [
      'a capability already held (before a pending request is looked at)',
      (t) => {
        runSync(accessRequest(ask()), t.ops);
        t.holds.add('bot crm.write');
        return ask();
      },
      {
        code: 'already_held',
        kind: 'conflict',
        reason: 'you already hold crm.write',
        remedy: 'GET /v1/capabilities lists what you hold',
      },
    ],
    [
      'a request already pending for it',
      (t) => {
        t.requests.set('acr_open', { ...t.requests.get(t.approved())!, id: 'acr_open', status: 'pending' });
        return ask();
      },
      {
        code: 'request_pending',
        kind: 'conflict',
        reason: 'access request acr_open for crm.write is already pending',
        remedy:
          'wait for its decision (`svc access show acr_open`), or revoke it first (`svc access revoke acr_open`)',
      },
    ],
    [
      'nobody who could decide it: no manager, and no human owner',
      () => ask({ actorId: 'orphan', capability: 'unowned' }),
      {
        code: 'no_decider',
        kind: 'conflict',
        reason: 'nobody can decide a request for unowned: you have no manager and it has no owner',
        remedy: 'ask an administrator to name an owner: svc capability register … --owner <human>',
      },
    ],
  ];
  for (const [what, input, refusal] of refusals) {
    it(`refuses ${what}, and writes nothing`, async () => {
      const t = tenant();
      const given = input(t);
      const [requests, journal] = [t.requests.size, t.journal.length];
      expect(await thrown(() => runSync(accessRequest(given), t.ops))).toMatchObject(refusal);
      expect([t.requests.size, t.journal.length]).toEqual([requests, journal]);
    });
  }
});

describe('withdrawing an access request (core/access-request.ts)', () => {
  it('withdraws a pending request as its requester: no entitlement to end', () => {
    const t = tenant();
    const { id } = runSync(accessRequest(ask()), t.ops);
    const receipt = runSync(requestWithdrawal(t.actors.get('bot')!, id, 'not needed', T0), t.ops);
    expect(receipt).toEqual({ receiptId: 'rcp_2', sequence: 2 });
    expect(t.requests.get(id)!.status).toBe('revoked');
    expect(t.journal[1]).toEqual({
      tenantId: 'acme',
      step: 'revoked',
      actorId: 'bot',
      subjectId: id,
      capability: 'crm.write',
      tier: 2,
      at: AT,
      fields: {
        access_request_id: id,
        requester_id: 'bot',
        previous_status: 'pending',
        entitlement_id: null,
        note: 'not needed',
      },
    });
  });

  it('ends an approved request and its entitlement at once, as a decider', () => {
    const t = tenant();
    const id = t.approved();
    runSync(requestWithdrawal(t.actors.get('owner')!, id, null, T0), t.ops);
    expect(t.requests.get(id)!.status).toBe('revoked');
    expect(t.entitlements.get(`ent_${id}`)).toEqual({ revokedBy: 'owner', revokedAt: AT });
    expect(t.journal).toEqual([
      expect.objectContaining({
        step: 'revoked',
        actorId: 'owner',
        fields: expect.objectContaining({ previous_status: 'approved', entitlement_id: `ent_${id}` }),
      }),
    ]);
  });

  const refusals: [string, string, (t: ReturnType<typeof tenant>) => string, Record<string, unknown>][] = [
    ['an unknown request', 'op', () => 'acr_none', { code: 'not_found', reason: 'no such access request' }],
    [
      'a request the viewer may not read (as if it did not exist)',
      'stranger',
      (t) => t.approved(),
      { code: 'not_found', reason: 'no such access request' },
    ],
    [
      'a reader who may not revoke',
      'auditor',
      (t) => t.approved(),
      {
        code: 'not_a_revoker',
        kind: 'forbidden',
        reason:
          'only the requester, its manager, an owner of the capability, an operator or an administrator revokes a request',
      },
    ],
    [
      'a denied request',
      'bot',
      (t) => {
        t.requests.set('acr_no', {
          ...t.requests.get(t.approved())!,
          id: 'acr_no',
          status: 'denied',
          decision: 'deny',
        });
        return 'acr_no';
      },
      {
        code: 'not_revocable',
        kind: 'conflict',
        reason: 'access request acr_no is denied: nothing to revoke',
      },
    ],
    [
      'an approved request whose entitlement ran out',
      'bot',
      (t) => t.approved('acr_old', AT),
      { code: 'not_revocable', reason: 'access request acr_old is expired: nothing to revoke' },
    ],
  ];
  for (const [what, viewer, given, refusal] of refusals) {
    it(`refuses ${what}, and writes nothing`, async () => {
      const t = tenant();
      const id = given(t);
      const before = structuredClone([...t.requests.entries(), ...t.entitlements.entries()]);
      const run = () => runSync(requestWithdrawal(t.actors.get(viewer)!, id, null, T0), t.ops);
      expect(await thrown(run)).toMatchObject(refusal);
      expect([...t.requests.entries(), ...t.entitlements.entries()]).toEqual(before);
      expect(t.journal).toEqual([]);
    });
  }

  it('fails with a coded conflict when the request changed before its guarded write, and records nothing', async () => {
    const t = tenant();
    const id = t.approved();
    // another writer withdrew it after the use case read it as approved
    const ops = beforeOp(t.ops, 'revokeRequest', () =>
      t.requests.set(id, { ...t.requests.get(id)!, status: 'revoked' }),
    );
    expect(
      await thrown(() => runSync(requestWithdrawal(t.actors.get('bot')!, id, null, T0), ops)),
    ).toMatchObject({
      code: 'conflict',
      reason:
        'the request withdrawal changed 0 rows, not one: the state it was decided on no longer holds; retry',
    });
    expect(t.entitlements.get(`ent_${id}`)!.revokedAt).toBeNull();
    expect(t.journal).toEqual([]);
  });

  it('fails with a coded conflict when the entitlement was revoked before its guarded write', async () => {
    const t = tenant();
    const id = t.approved();
    const ops = beforeOp(t.ops, 'revokeEntitlement', () =>
      t.entitlements.set(`ent_${id}`, { revokedBy: 'op', revokedAt: AT }),
    );
    expect(
      await thrown(() => runSync(requestWithdrawal(t.actors.get('bot')!, id, null, T0), ops)),
    ).toMatchObject({
      code: 'conflict',
      reason:
        'the revocation of its entitlement changed 0 rows, not one: the state it was decided on no longer holds; retry',
    });
    expect(t.journal).toEqual([]);
  });
});
