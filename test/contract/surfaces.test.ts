import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/core/actor.js';
import { NOW, REGISTRY_ADAPTERS, type RegistryUnderTest } from './registry-adapters.js';

async function failure(p: Promise<unknown>): Promise<{ code?: string }> {
  return p.then(
    () => ({}),
    (err: unknown) => err as { code?: string },
  );
}

describe.each(REGISTRY_ADAPTERS)('journaled surface operations on %s', (_name, open, skip) => {
  if (skip) {
    it.skip(`skipped: ${skip}`, () => undefined);
    return;
  }
  let s: RegistryUnderTest;
  let n = 0;
  beforeAll(async () => {
    s = await open();
  });
  afterAll(async () => {
    await s?.close();
  });

  async function tenant(): Promise<Actor> {
    const id = `s${++n}`;
    const at = NOW.toISOString();
    await s.exec('INSERT INTO tenants (id, created_at) VALUES (?, ?)', [id, at]);
    await s.exec('INSERT INTO actors (tenant_id, id, kind, roles, created_at) VALUES (?, ?, ?, ?, ?)', [
      id,
      'admin',
      'human',
      '["administrator"]',
      at,
    ]);
    return {
      tenantId: id,
      id: 'admin',
      kind: 'human',
      roles: ['administrator'],
      managerId: null,
      certSubject: null,
      displayName: null,
      createdAt: at,
    };
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
      await failure(s.surfaces.rotate(t, 'crm', { documentRef: 'secret:a', next: 'secret:b', actor: admin })),
    ).toMatchObject({ code: 'credential_in_use' });
    expect(
      await failure(s.surfaces.rotate(t, 'crm', { documentRef: 'secret:a', next: 'secret:a', actor: admin })),
    ).toMatchObject({ code: 'credential_retired' });
    expect((await s.surfaces.revoke(t, 'crm', { documentRef: 'secret:a', actor: admin })).state.status).toBe(
      'revoked',
    );
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
