import { beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import type { Store } from '../../../src/store/ports.js';
import type { StoreHarness } from '../harness.js';
import { tenantWith } from './fixtures.js';

/** What the surface store is timed by: the same instant on both adapters. */
const NOW = new Date('2026-03-01T00:00:00.000Z');

async function failure(p: Promise<unknown>): Promise<{ code?: string }> {
  return p.then(
    () => ({}),
    (err: unknown) => err as { code?: string },
  );
}

/** SurfaceRepo: rotations, revocations and checks, each journaled. */
export function surfaceContract(h: () => StoreHarness): void {
  describe('journaled surface operations', () => {
    let s: Store;
    let n = 0;
    beforeAll(async () => {
      s = await h().open({ clock: () => NOW });
    });

    async function tenant(): Promise<Actor> {
      const id = `s${++n}`;
      const admin: Actor = {
        tenantId: id,
        id: 'admin',
        kind: 'human',
        roles: ['administrator'],
        managerId: null,
        certSubject: null,
        displayName: null,
        createdAt: NOW.toISOString(),
      };
      await tenantWith(s, id, [admin], NOW.toISOString());
      return admin;
    }

    it('rotate, never back to a retired reference; revoke once; rotate again reactivates; all journaled', async () => {
      const admin = await tenant();
      const t = admin.tenantId;
      expect(await s.surfaces.get(t, 'crm')).toBeUndefined();
      const rotated = await s.surfaces.rotate(t, 'crm', {
        documentRef: 'secret:a',
        next: 'secret:b',
        actor: admin,
      });
      expect(rotated.state).toEqual({
        tenantId: t,
        surfaceId: 'crm',
        credentialRef: 'secret:b',
        retiredRefs: ['secret:a'],
        status: 'active',
        rotatedAt: NOW.toISOString(),
        revokedAt: null,
        updatedBy: 'admin',
        updatedAt: NOW.toISOString(),
      });
      expect(rotated.receipt).toMatchObject({ sequence: 1 });
      expect(
        await failure(
          s.surfaces.rotate(t, 'crm', { documentRef: 'secret:a', next: 'secret:b', actor: admin }),
        ),
      ).toMatchObject({ code: 'credential_in_use' });
      expect(
        await failure(
          s.surfaces.rotate(t, 'crm', { documentRef: 'secret:a', next: 'secret:a', actor: admin }),
        ),
      ).toMatchObject({ code: 'credential_retired' });
      expect(
        (await s.surfaces.revoke(t, 'crm', { documentRef: 'secret:a', actor: admin })).state.status,
      ).toBe('revoked');
      expect(
        await failure(s.surfaces.revoke(t, 'crm', { documentRef: 'secret:a', actor: admin })),
      ).toMatchObject({
        code: 'surface_revoked',
      });
      const back = await s.surfaces.rotate(t, 'crm', {
        documentRef: 'secret:a',
        next: 'secret:c',
        actor: admin,
      });
      expect(back.state).toMatchObject({ status: 'active', retiredRefs: ['secret:a', 'secret:b'] });
      await s.surfaces.revoke(t, 'billing', { documentRef: 'env:BILLING', actor: admin });
      expect((await s.surfaces.list(t)).map((x) => [x.surfaceId, x.status])).toEqual([
        ['billing', 'revoked'],
        ['crm', 'active'],
      ]);
      const check = await s.surfaces.journalCheck(t, 'crm', admin, {
        credentialRef: 'secret:c',
        answer: 'ok',
        reason: 'the vendor answered 200',
        detail: { status: 200 },
      });
      expect(check.sequence).toBe(5);
      const listed = await s.receipts.list(admin, { limit: 10 }, {});
      expect(listed.items.map((r) => [r.sequence, r.kind, r.capability, r.outcome])).toEqual([
        [1, 'integration_op', 'integration-ops:crm', 'rotated'],
        [2, 'integration_op', 'integration-ops:crm', 'revoked'],
        [3, 'integration_op', 'integration-ops:crm', 'rotated'],
        [4, 'integration_op', 'integration-ops:billing', 'revoked'],
        [5, 'integration_op', 'integration-ops:crm', 'ok'],
      ]);
    });

    it('concurrent revocations of one surface: one wins, the others are told it is revoked', async () => {
      const admin = await tenant();
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, () =>
          s.surfaces.revoke(admin.tenantId, 'crm', { documentRef: 'secret:a', actor: admin }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results)
        if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'surface_revoked' });
      expect((await s.receipts.list(admin, { limit: 10 }, {})).items.map((r) => r.sequence)).toEqual([1]);
    });
  });
}
