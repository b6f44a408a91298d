/**
 * The guarded writes of the approval and manager-card decisions, on both stores: when the
 * row changes between the use case's read and its write, the write changes no row and the
 * decision fails with a coded conflict, writing and journaling nothing. The tenant lock and
 * SQLite's single writer keep this from happening in the product, so the test makes it
 * happen: it wraps the adapter's operations and changes the row just before the guarded
 * write runs (on SQLite inside the same transaction, its only writer; on PostgreSQL from
 * another connection, as a writer that skipped the tenant lock would).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/core/actor.js';
import { admits } from '../../src/core/constraints.js';
import { PolicyCache } from '../../src/daemon/policy-cache.js';
import type { Sealed } from '../../src/store/decision-ports.js';
import type { Store } from '../../src/store/ports.js';
import { PgApprovals } from '../../src/store/postgres/approvals.js';
import type { PgDb, PgTx } from '../../src/store/postgres/database.js';
import { PgManagerCards } from '../../src/store/postgres/manager-cards.js';
import type { PgStore } from '../../src/store/postgres/store.js';
import { SqliteApprovals } from '../../src/store/sqlite/approvals.js';
import type { Db } from '../../src/store/sqlite/database.js';
import { SqliteManagerCards } from '../../src/store/sqlite/manager-cards.js';
import type { SqliteStore } from '../../src/store/sqlite/store.js';
import { contractAdapters, type StoreHarness } from '../contract/harness.js';
import { human, T0 } from '../contract/cases/fixtures.js';
import { beforeOp } from '../helpers/op-race.js';
import { request } from '../helpers/pg-seed.js';
import { capabilityRecord, taskRecord } from '../helpers/registry-records.js';

/** Runs `race` just before the guarded write of each decision. */
class RacedSqliteApprovals extends SqliteApprovals {
  constructor(
    db: Db,
    private readonly race: () => void,
  ) {
    super(db);
  }
  protected override decisionOps() {
    return beforeOp(super.decisionOps(), 'decide', this.race);
  }
}

class RacedSqliteManagerCards extends SqliteManagerCards {
  constructor(
    db: Db,
    private readonly race: () => void,
  ) {
    super(db);
  }
  protected override decisionOps() {
    return beforeOp(super.decisionOps(), 'decide', this.race);
  }
}

class RacedPgApprovals extends PgApprovals {
  constructor(
    db: PgDb,
    private readonly race: () => Promise<void>,
  ) {
    super(db);
  }
  protected override decisionOpsIn(tx: PgTx) {
    return beforeOp(super.decisionOpsIn(tx), 'decide', this.race);
  }
}

class RacedPgManagerCards extends PgManagerCards {
  constructor(
    db: PgDb,
    private readonly race: () => Promise<void>,
  ) {
    super(db);
  }
  protected override decisionOpsIn(tx: PgTx) {
    return beforeOp(super.decisionOpsIn(tx), 'decide', this.race);
  }
}

/** One adapter's decision stores whose guarded write meets `sql` run just before it. */
interface Raced {
  approvals(sql: string, params: unknown[]): Pick<Store['approvals'], 'decide'>;
  managerCards(sql: string, params: unknown[]): Pick<Store['managerCards'], 'decide'>;
}

function raced(name: StoreHarness['name'], store: Store): Raced {
  if (name === 'sqlite') {
    const db = (store as SqliteStore).db;
    const run = (sql: string, params: unknown[]) => () => void db.prepare(sql).run(...params);
    return {
      approvals: (sql, params) => new RacedSqliteApprovals(db, run(sql, params)),
      managerCards: (sql, params) => new RacedSqliteManagerCards(db, run(sql, params)),
    };
  }
  const db = (store as PgStore).db;
  // the pool's next connection: not the decision's transaction, and committed at once
  const numbered = (sql: string) =>
    sql.replace(
      /\?/g,
      (
        (n) => () =>
          `$${++n}`
      )(0),
    );
  const run = (sql: string, params: unknown[]) => async () => void (await db.query(numbered(sql), params));
  return {
    approvals: (sql, params) => new RacedPgApprovals(db, run(sql, params)),
    managerCards: (sql, params) => new RacedPgManagerCards(db, run(sql, params)),
  };
}

const bot: Actor = human('acme', 'bot', { kind: 'agent', roles: [], managerId: 'mgr' });
const alice = human('acme', 'alice', { roles: ['administrator', 'approver'] });

/** Tenant acme: alice (approver), mgr, owner, agent bot; payments.send needs approval, crm.write is requestable. */
async function provision(store: Store): Promise<void> {
  await store.tenants.create({
    tenant: { id: 'acme', createdAt: T0 },
    signingKey: { tenantId: 'acme', keyId: 'k1', publicKey: 'cHVibGlj', algorithm: 'ed25519', createdAt: T0 },
    admin: alice,
  });
  await store.actors.add(human('acme', 'mgr', { roles: [] }));
  await store.actors.add(human('acme', 'owner', { roles: [] }));
  await store.actors.add(bot);
  for (const [name, tier, irreversible, requestable] of [
    ['payments.send', 4, true, false],
    ['crm.write', 2, false, true],
  ] as const) {
    await store.capabilities.put(
      capabilityRecord('acme', name, T0, {
        tier,
        irreversible,
        actions: ['write'],
        costMicros: 0n,
        requestable,
        owners: ['owner'],
      }),
    );
  }
  await store.permissions.grant({
    tenantId: 'acme',
    actorId: 'bot',
    capability: 'payments.send',
    grantedAt: T0,
  });
  await store.policies.set('acme', 'permit (principal, action, resource);', T0);
  await store.tasks.create(taskRecord('acme', 'pay', T0, { budgetMicros: 10n ** 9n }));
}

const sequences = async (store: Store) =>
  (await store.receipts.list(alice, { limit: 100 }, {})).items.map((r) => r.sequence);

const CONFLICT = {
  kind: 'conflict',
  code: 'conflict',
  reason: expect.stringMatching(
    /changed 0 rows, not one: the state it was decided on no longer holds; retry$/,
  ),
};

for (const adapter of await contractAdapters()) {
  describe.skipIf(adapter.skip !== undefined)(`guarded decision writes on ${adapter.name}`, () => {
    let harness: StoreHarness | undefined;
    const h = (): StoreHarness => (harness ??= adapter.harness());
    afterAll(async () => {
      await harness?.cleanup();
    });

    it('an approval decided by another writer since it was read: a coded conflict, nothing journaled', async () => {
      const store = await h().open();
      await provision(store);
      const rules = { policy: new PolicyCache(), constraints: admits };
      const deferred = (await store.decisions.decide(
        request('payments.send', 'pay', 'p1'),
        bot,
        'new',
        rules,
      )) as Extract<Sealed, { kind: 'sealed' }>;
      const approvalId = deferred.approval!.approvalId;
      const decision = {
        tenantId: 'acme',
        approvalId,
        deciderId: 'alice',
        decision: 'approve' as const,
        note: null,
        channel: 'api' as const,
      };
      const approvals = raced(adapter.name, store).approvals(
        "UPDATE approvals SET status = 'denied', decided_by = 'mgr', decided_at = ? WHERE tenant_id = 'acme' AND id = ?",
        [T0, approvalId],
      );
      await expect(approvals.decide({ ...decision, at: new Date() })).rejects.toMatchObject({
        ...CONFLICT,
        reason: expect.stringMatching(/^the approval decision changed 0 rows/),
      });
      expect(await sequences(store)).toEqual([1]);
      if (adapter.name === 'sqlite') {
        // the other write ran in the decision's transaction, and rolled back with it
        expect((await store.approvals.get(alice, approvalId, new Date()))?.status).toBe('pending');
        const decided = await store.approvals.decide({ ...decision, at: new Date() });
        expect(decided).toMatchObject({ approval: { status: 'approved', decidedBy: 'alice' }, sequence: 2 });
      } else {
        // the other writer committed: its decision stands, this one wrote nothing
        expect(await store.approvals.get(alice, approvalId, new Date())).toMatchObject({
          status: 'denied',
          decidedBy: 'mgr',
          channel: null,
        });
      }
    });

    it('a card whose request changed since it was read: a coded conflict, no entitlement, nothing journaled', async () => {
      const store = await h().open();
      await provision(store);
      const { request: asked } = await store.accessRequests.request({
        tenantId: 'acme',
        actorId: 'bot',
        capability: 'crm.write',
        reason: 'import',
        durationSeconds: 3600,
        at: new Date(),
      });
      const card = asked.cards.find((c) => c.recipientId === 'mgr')!;
      const decision = {
        tenantId: 'acme',
        cardId: card.cardId,
        deciderId: 'mgr',
        decision: 'approve' as const,
        note: null,
      };
      const cards = raced(adapter.name, store).managerCards(
        "UPDATE access_requests SET status = 'revoked', revoked_by = 'bot', revoked_at = ? WHERE tenant_id = 'acme' AND id = ?",
        [T0, asked.id],
      );
      await expect(cards.decide({ ...decision, at: new Date() })).rejects.toMatchObject({
        ...CONFLICT,
        reason: expect.stringMatching(/^the access request decision changed 0 rows/),
      });
      expect(await sequences(store)).toEqual([1]);
      expect((await store.entitlements.list(alice, { limit: 10 }, {}, new Date())).items).toEqual([]);
      if (adapter.name === 'sqlite') {
        expect((await store.accessRequests.get(alice, asked.id, new Date()))?.status).toBe('pending');
        const decided = await store.managerCards.decide({ ...decision, at: new Date() });
        expect(decided).toMatchObject({ request: { status: 'approved' }, receipt: { sequence: 2 } });
      } else {
        expect((await store.accessRequests.get(alice, asked.id, new Date()))?.status).toBe('revoked');
      }
    });
  });
}
