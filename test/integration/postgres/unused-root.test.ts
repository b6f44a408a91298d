import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../../src/store/postgres/store.js';
import { human, T0, tenantWith } from '../../contract/cases/fixtures.js';
import { freshDatabase, pgAvailable } from '../../helpers/postgres.js';

const server = await pgAvailable();

/**
 * A draft root that already has admissions but no plan: rows written before plans existed,
 * a state no store port can produce (an admission is only written against an installed plan),
 * so it is seeded here rather than in the port-only store contract. The SQLite adapter's
 * refusal is checked over HTTP in test/integration/constraints.test.ts.
 */
describe.skipIf('skip' in server)('PostgreSQL: a plan is never installed on a root with admissions', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let store: PgStore;
  beforeAll(async () => {
    fresh = await freshDatabase();
    store = await PgStore.open(fresh.url, { poolSize: 2 });
  });
  afterAll(async () => {
    await store?.close();
    await fresh?.drop();
  });

  it('refuses task_used and leaves the root draft and unconstrained', async () => {
    const sponsor = human('acme', 'carol', { roles: [] });
    await tenantWith(store, 'acme', [
      sponsor,
      human('acme', 'bot', { kind: 'agent', roles: [], managerId: 'carol' }),
    ]);
    await store.tasks.create({
      tenantId: 'acme',
      id: 'used',
      title: null,
      sponsorId: 'carol',
      status: 'draft',
      parentId: null,
      rootId: 'used',
      budgetMicros: 1_000_000n,
      reservedMicros: 0n,
      actors: [],
      createdAt: T0,
      closedAt: null,
    });
    await store.db.query(
      `INSERT INTO admissions (tenant_id, id, root_id, task_id, intent_id, actor_id, capability, amount_micros, created_at)
       VALUES ('acme', 'u1', 'used', 'used', 'iu', 'bot', 'pay', 1, $1)`,
      [T0],
    );
    await expect(store.constraints.install(sponsor, 'used', {}, new Date(T0))).rejects.toMatchObject({
      code: 'task_used',
    });
    expect((await store.tasks.get('acme', 'used'))?.status).toBe('draft');
    expect((await store.constraints.profile(sponsor, 'used'))?.plan).toBeNull();
  });
});
