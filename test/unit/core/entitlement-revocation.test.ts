import { memoryOutbox } from '../../helpers/memory-outbox.js';
import { describe, expect, it } from 'vitest';
import type { StoredAccessStatus } from '../../../src/core/access.js';
import type { Actor } from '../../../src/core/actor.js';
import {
  entitlementRevocation,
  type EntitlementRevocationOps,
  type StoredEntitlement,
} from '../../../src/core/entitlement-revocation.js';
import type { AccessJournalInput } from '../../../src/core/records/access-record.js';
import { runSync } from '../../../src/core/use-case.js';
import { beforeOp, thrown } from '../../helpers/op-race.js';
import { actorRecord } from '../../helpers/registry-records.js';

const T0 = new Date('2026-06-01T12:00:00.000Z');
const AT = T0.toISOString();

const actor = (id: string, roles: Actor['roles'] = []): Actor => actorRecord('acme', id, AT, { roles });
const people = {
  bot: actor('bot'),
  mgr: actor('mgr'),
  owner: actor('owner'),
  op: actor('op', ['operator']),
  auditor: actor('auditor', ['auditor']),
  stranger: actor('stranger'),
};

/** One tenant in memory; the guarded writes change a row only where it holds the state they expect. */
function tenant() {
  const entitlements = new Map<string, StoredEntitlement>();
  const requests = new Map<string, StoredAccessStatus>();
  const journal: AccessJournalInput[] = [];
  const put = (id: string, o: Partial<StoredEntitlement> = {}) => {
    const e: StoredEntitlement = {
      id,
      holderId: 'bot',
      capability: 'crm.write',
      expiresAt: '2026-06-01T13:00:00.000Z',
      revokedAt: null,
      accessRequestId: `acr_${id}`,
      tier: 2,
      overseers: ['mgr', 'owner'],
      ...o,
    };
    entitlements.set(id, e);
    if (e.accessRequestId !== null) requests.set(e.accessRequestId, 'approved');
    return id;
  };
  const ops: EntitlementRevocationOps = {
    ...memoryOutbox().ops,
    entitlement: (_t, id) => entitlements.get(id),
    revokeEntitlement: (_t, id, _by, at) => {
      const e = entitlements.get(id);
      if (!e || e.revokedAt !== null) return 0;
      entitlements.set(id, { ...e, revokedAt: at });
      return 1;
    },
    revokeRequest: (_t, id, expected) => {
      if (requests.get(id) !== expected) return 0;
      requests.set(id, 'revoked');
      return 1;
    },
    appendAccess: (entry) => {
      journal.push(entry);
      return { receiptId: `rcp_${journal.length}`, sequence: journal.length };
    },
  };
  return { entitlements, requests, journal, ops, put };
}

describe('revoking an entitlement (core/entitlement-revocation.ts)', () => {
  it('revokes it and the approved request it came from, with one journal record', () => {
    const t = tenant();
    const id = t.put('ent_1');
    const receipt = runSync(entitlementRevocation(people.mgr, id, 'job done', T0), t.ops);
    expect(receipt).toEqual({ receiptId: 'rcp_1', sequence: 1 });
    expect(t.entitlements.get(id)!.revokedAt).toBe(AT);
    expect(t.requests.get('acr_ent_1')).toBe('revoked');
    expect(t.journal).toEqual([
      {
        tenantId: 'acme',
        step: 'entitlement_revoked',
        actorId: 'mgr',
        subjectId: 'acr_ent_1',
        capability: 'crm.write',
        tier: 2,
        at: AT,
        fields: {
          entitlement_id: id,
          access_request_id: 'acr_ent_1',
          holder_id: 'bot',
          expires_at: '2026-06-01T13:00:00.000Z',
          note: 'job done',
        },
      },
    ]);
  });

  it('revokes one that came from no request, naming it as the subject; tier 0 once its capability is gone', () => {
    const t = tenant();
    const id = t.put('ent_2', { accessRequestId: null, tier: null });
    runSync(entitlementRevocation(people.op, id, null, T0), t.ops);
    expect(t.journal).toEqual([
      expect.objectContaining({
        subjectId: id,
        tier: 0,
        fields: expect.objectContaining({ access_request_id: null }),
      }),
    ]);
  });

  const refusals: [string, Actor, (t: ReturnType<typeof tenant>) => string, Record<string, unknown>][] = [
    [
      'an unknown entitlement',
      people.op,
      () => 'ent_none',
      { code: 'not_found', reason: 'no such entitlement' },
    ],
    [
      'an entitlement the viewer may not read (as if it did not exist)',
      people.stranger,
      (t) => t.put('ent_1'),
      { code: 'not_found', reason: 'no such entitlement' },
    ],
    [
      'a reader who may not revoke',
      people.auditor,
      (t) => t.put('ent_1'),
      {
        code: 'not_a_revoker',
        kind: 'forbidden',
        reason:
          'only the holder, its manager, an owner of the capability, an operator or an administrator revokes an entitlement',
      },
    ],
    [
      'an entitlement already revoked',
      people.bot,
      (t) => t.put('ent_1', { revokedAt: '2026-06-01T11:00:00.000Z' }),
      { code: 'not_revocable', kind: 'conflict', reason: 'entitlement ent_1 is revoked: nothing to revoke' },
    ],
    [
      'an entitlement that ran out',
      people.bot,
      (t) => t.put('ent_1', { expiresAt: AT }),
      { code: 'not_revocable', reason: 'entitlement ent_1 is expired: nothing to revoke' },
    ],
  ];
  for (const [what, viewer, given, refusal] of refusals) {
    it(`refuses ${what}, and writes nothing`, async () => {
      const t = tenant();
      const id = given(t);
      const before = structuredClone([[...t.entitlements.entries()], [...t.requests.entries()]]);
      expect(await thrown(() => runSync(entitlementRevocation(viewer, id, null, T0), t.ops))).toMatchObject(
        refusal,
      );
      expect([[...t.entitlements.entries()], [...t.requests.entries()]]).toEqual(before);
      expect(t.journal).toEqual([]);
    });
  }

  it('fails with a coded conflict when the entitlement was revoked before its guarded write', async () => {
    const t = tenant();
    const id = t.put('ent_1');
    const ops = beforeOp(t.ops, 'revokeEntitlement', () =>
      t.entitlements.set(id, { ...t.entitlements.get(id)!, revokedAt: AT }),
    );
    expect(await thrown(() => runSync(entitlementRevocation(people.bot, id, null, T0), ops))).toMatchObject({
      code: 'conflict',
      reason:
        'the entitlement revocation changed 0 rows, not one: the state it was decided on no longer holds; retry',
    });
    expect(t.requests.get('acr_ent_1')).toBe('approved');
    expect(t.journal).toEqual([]);
  });

  it('fails with a coded conflict when the request it came from is no longer approved', async () => {
    const t = tenant();
    const id = t.put('ent_1');
    const ops = beforeOp(t.ops, 'revokeRequest', () => t.requests.set('acr_ent_1', 'revoked'));
    expect(await thrown(() => runSync(entitlementRevocation(people.bot, id, null, T0), ops))).toMatchObject({
      code: 'conflict',
      reason:
        'the revocation of the request it came from changed 0 rows, not one: the state it was decided on no longer holds; retry',
    });
    expect(t.journal).toEqual([]);
  });
});
