import { afterAll, describe, expect, it } from 'vitest';
import { accessRequest, requestWithdrawal, type AccessRequestOps } from '../../src/core/access-request.js';
import type { Capability } from '../../src/core/capability.js';
import {
  constraintsInstallation,
  type ConstraintsInstallationOps,
} from '../../src/core/constraints-installation.js';
import {
  entitlementRevocation,
  type EntitlementRevocationOps,
} from '../../src/core/entitlement-revocation.js';
import { keyRotation, type KeyRotationOps } from '../../src/core/signing-key.js';
import { runAsync, runSync, type Async, type Operations, type UseCase } from '../../src/core/use-case.js';
import type { Store } from '../../src/store/ports.js';
import { accessRequestOpsIn } from '../../src/store/postgres/access-requests.js';
import { constraintsInstallationOpsIn } from '../../src/store/postgres/constraints.js';
import type { PgTx } from '../../src/store/postgres/database.js';
import { entitlementRevocationOpsIn } from '../../src/store/postgres/entitlements.js';
import { keyRotationOpsIn } from '../../src/store/postgres/keys.js';
import { lockTenant } from '../../src/store/postgres/locks.js';
import type { PgStore } from '../../src/store/postgres/store.js';
import { accessRequestOps } from '../../src/store/sqlite/access-requests.js';
import { constraintsInstallationOps } from '../../src/store/sqlite/constraints.js';
import type { Db } from '../../src/store/sqlite/database.js';
import { entitlementRevocationOps } from '../../src/store/sqlite/entitlements.js';
import { keyRotationOps } from '../../src/store/sqlite/keys.js';
import type { SqliteStore } from '../../src/store/sqlite/store.js';
import { writeTransaction } from '../../src/store/sqlite/write-lock.js';
import { contractAdapters, type StoreHarness } from '../contract/harness.js';
import { human, newTenant, T0 } from '../contract/cases/fixtures.js';
import { beforeOp, thrown } from '../helpers/op-race.js';
import { capabilityRecord, taskRecord } from '../helpers/registry-records.js';

/**
 * The guarded writes of the access, constraints and key use cases on real databases: another
 * writer changes the row between the use case's read and its guarded write, and the store's
 * statement changes no row, so the use case fails with the coded conflict and its transaction
 * writes nothing. On SQLite the other writer is a statement on the same connection, inside the
 * transaction (the single writer admits no other); on PostgreSQL it is another connection,
 * committed while the use case's transaction holds the tenant lock.
 */

const AT = new Date('2026-03-01T10:30:00.000Z');
const CONFLICT = 'changed 0 rows, not one: the state it was decided on no longer holds; retry';

/** The four sets of operations of one adapter, and how it runs a use case with one of them raced. */
interface Adapter {
  access: { sqlite: (db: Db) => AccessRequestOps; pg: (tx: PgTx) => Async<AccessRequestOps> };
  entitlements: {
    sqlite: (db: Db) => EntitlementRevocationOps;
    pg: (tx: PgTx) => Async<EntitlementRevocationOps>;
  };
  constraints: {
    sqlite: (db: Db) => ConstraintsInstallationOps;
    pg: (tx: PgTx) => Async<ConstraintsInstallationOps>;
  };
  keys: { sqlite: (db: Db) => KeyRotationOps; pg: (tx: PgTx) => Async<KeyRotationOps> };
}
const OPS: Adapter = {
  access: { sqlite: accessRequestOps, pg: accessRequestOpsIn },
  entitlements: { sqlite: entitlementRevocationOps, pg: entitlementRevocationOpsIn },
  constraints: { sqlite: constraintsInstallationOps, pg: constraintsInstallationOpsIn },
  keys: { sqlite: keyRotationOps, pg: keyRotationOpsIn },
};

/** `?` placeholders as PostgreSQL's `$n`. */
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/**
 * Runs `useCase` in one store transaction (SQLite: the write transaction; PostgreSQL: under
 * the tenant lock) with `other` (one statement of another writer), if given, run just before `op`.
 */
function raced<P extends Operations<P>, R>(
  name: StoreHarness['name'],
  store: Store,
  ops: { sqlite: (db: Db) => P; pg: (tx: PgTx) => Async<P> },
  useCase: UseCase<P, R>,
  other?: [op: keyof P, sql: string, params: unknown[]],
): Promise<R> {
  if (name === 'sqlite') {
    const db = (store as SqliteStore).db;
    const plain = ops.sqlite(db);
    const run = other ? beforeOp(plain, other[0], () => db.prepare(other[1]).run(...other[2])) : plain;
    return writeTransaction(db, () => runSync(useCase, run));
  }
  const db = (store as PgStore).db;
  return db.tx(async (tx) => {
    await lockTenant(tx, 'acme');
    const plain = ops.pg(tx);
    const run = other ? beforeOp(plain, other[0], () => db.query(numbered(other[1]), other[2])) : plain;
    return runAsync(useCase, run);
  });
}

const capability: Capability = capabilityRecord('acme', 'crm.write', T0, {
  tier: 2,
  actions: ['write'],
  costMicros: 0n,
  requestable: true,
  owners: ['owner'],
});
const people = {
  alice: human('acme', 'alice'),
  owner: human('acme', 'owner', { roles: [] }),
  bot: human('acme', 'bot', { kind: 'agent', roles: [], managerId: 'alice' }),
};

/** A tenant whose agent `bot` holds crm.write through an approved request; returns the request and entitlement ids. */
async function approvedAccess(store: Store): Promise<{ requestId: string; entitlementId: string }> {
  await store.tenants.create(newTenant('acme'));
  await store.actors.add(people.owner);
  await store.actors.add(people.bot);
  await store.capabilities.put(capability);
  const { request } = await store.accessRequests.request({
    tenantId: 'acme',
    actorId: 'bot',
    capability: 'crm.write',
    reason: 'import',
    durationSeconds: 3600,
    at: AT,
  });
  const decided = await store.managerCards.decide({
    tenantId: 'acme',
    cardId: request.cards[0]!.cardId,
    deciderId: request.cards[0]!.recipientId,
    decision: 'approve',
    note: null,
    at: AT,
  });
  return { requestId: request.id, entitlementId: decided.entitlement!.id };
}

for (const adapter of await contractAdapters()) {
  if (adapter.skip !== undefined)
    console.warn(`guarded access writes on ${adapter.name} skipped: ${adapter.skip}`);
  describe.skipIf(adapter.skip !== undefined)(`guarded access writes: ${adapter.name}`, () => {
    let harness: StoreHarness | undefined;
    const h = (): StoreHarness => (harness ??= adapter.harness());
    afterAll(async () => {
      await harness?.cleanup();
    });
    const receipts = async (store: Store) =>
      (await store.receipts.list(people.alice, { limit: 100 }, {})).items.length;
    /**
     * Tenant acme with bot's approved access, and the error `run` fails with on it (its use case
     * raced); `journalUnmoved` asserts that no receipt was added since.
     */
    const racedOnApproved = async (
      run: (ids: { requestId: string; entitlementId: string }, store: Store) => Promise<unknown>,
    ) => {
      const store = await h().open();
      const ids = await approvedAccess(store);
      const before = await receipts(store);
      const err = await thrown(() => run(ids, store));
      const journalUnmoved = async () => expect(await receipts(store)).toBe(before);
      return { store, ...ids, err, journalUnmoved };
    };

    it('a request withdrawn under a use case that read it approved: conflict, its entitlement untouched', async () => {
      const { store, entitlementId, err, journalUnmoved } = await racedOnApproved(({ requestId }, store) =>
        raced(adapter.name, store, OPS.access, requestWithdrawal(people.bot, requestId, null, AT), [
          'revokeRequest',
          `UPDATE access_requests SET status = 'revoked' WHERE id = ?`,
          [requestId],
        ]),
      );
      expect(err).toMatchObject({ code: 'conflict', reason: `the request withdrawal ${CONFLICT}` });
      expect(await store.entitlements.get(people.alice, entitlementId, AT)).toMatchObject({
        status: 'active',
      });
      await journalUnmoved();
    });

    it('an entitlement revoked under a withdrawal that read it live: conflict, the request stays approved', async () => {
      const { store, requestId, err, journalUnmoved } = await racedOnApproved(
        ({ requestId, entitlementId }, store) =>
          raced(adapter.name, store, OPS.access, requestWithdrawal(people.bot, requestId, null, AT), [
            'revokeEntitlement',
            'UPDATE entitlements SET revoked_at = ? WHERE id = ?',
            [AT.toISOString(), entitlementId],
          ]),
      );
      expect(err).toMatchObject({
        code: 'conflict',
        reason: `the revocation of its entitlement ${CONFLICT}`,
      });
      expect(await store.accessRequests.get(people.alice, requestId, AT)).toMatchObject({
        status: 'approved',
      });
      await journalUnmoved();
    });

    it('an entitlement revoked under a revocation that read it live: conflict, nothing recorded', async () => {
      const { store, requestId, err, journalUnmoved } = await racedOnApproved(({ entitlementId }, store) =>
        raced(
          adapter.name,
          store,
          OPS.entitlements,
          entitlementRevocation(people.owner, entitlementId, null, AT),
          [
            'revokeEntitlement',
            'UPDATE entitlements SET revoked_at = ? WHERE id = ?',
            [AT.toISOString(), entitlementId],
          ],
        ),
      );
      expect(err).toMatchObject({ code: 'conflict', reason: `the entitlement revocation ${CONFLICT}` });
      expect(await store.accessRequests.get(people.alice, requestId, AT)).toMatchObject({
        status: 'approved',
      });
      await journalUnmoved();
    });

    it('the request withdrawn under an entitlement revocation: conflict, the entitlement stays active', async () => {
      const { store, entitlementId, err, journalUnmoved } = await racedOnApproved(
        ({ requestId, entitlementId }, store) =>
          raced(
            adapter.name,
            store,
            OPS.entitlements,
            entitlementRevocation(people.owner, entitlementId, null, AT),
            ['revokeRequest', `UPDATE access_requests SET status = 'revoked' WHERE id = ?`, [requestId]],
          ),
      );
      expect(err).toMatchObject({
        code: 'conflict',
        reason: `the revocation of the request it came from ${CONFLICT}`,
      });
      expect(await store.entitlements.get(people.alice, entitlementId, AT)).toMatchObject({
        status: 'active',
      });
      await journalUnmoved();
    });

    it('a plan installed under an installation that read the root bare: conflict, the other plan stays', async () => {
      const store = await h().open();
      await store.tenants.create(newTenant('acme'));
      await store.tasks.create(
        taskRecord('acme', 'root', T0, { status: 'draft', budgetMicros: 0n, actors: [] }),
      );

      const err = await thrown(() =>
        raced(
          adapter.name,
          store,
          OPS.constraints,
          constraintsInstallation(people.alice, 'root', { max_actions: 1 }, AT),
          ['installPlan', `UPDATE tasks SET constraints = '{"max_actions":9}' WHERE id = ?`, ['root']],
        ),
      );
      expect(err).toMatchObject({ code: 'conflict', reason: `the execution plan installation ${CONFLICT}` });
      const profile = await store.constraints.profile(people.alice, 'root');
      // SQLite's other writer was inside the rolled-back transaction: no plan at all there
      expect(profile?.plan).toEqual(adapter.name === 'sqlite' ? null : { max_actions: 9 });
    });

    it('the active key retired under a rotation that read it active: conflict, no new key', async () => {
      const store = await h().open();
      await store.tenants.create(newTenant('acme'));
      const next = {
        tenantId: 'acme',
        keyId: 'acme-k2',
        publicKey: 'cHVibGlj',
        algorithm: 'ed25519' as const,
        createdAt: AT.toISOString(),
      };
      const err = await thrown(() =>
        raced(adapter.name, store, OPS.keys, keyRotation(next), [
          'retireKey',
          `UPDATE signing_keys SET status = 'retired', retired_at = ? WHERE key_id = ?`,
          [AT.toISOString(), 'acme-k1'],
        ]),
      );
      expect(err).toMatchObject({ code: 'conflict', reason: `the retirement of key acme-k1 ${CONFLICT}` });
      expect((await store.keys.list('acme')).map((k) => k.keyId)).toEqual(['acme-k1']);
    });

    it('unraced, the same operations open, withdraw and rotate (the harness itself is sound)', async () => {
      const store = await h().open();
      const { requestId } = await approvedAccess(store);
      await raced(adapter.name, store, OPS.access, requestWithdrawal(people.bot, requestId, null, AT));
      expect(await store.accessRequests.get(people.alice, requestId, AT)).toMatchObject({
        status: 'revoked',
      });
      const opened = await raced(
        adapter.name,
        store,
        OPS.access,
        accessRequest({
          tenantId: 'acme',
          actorId: 'bot',
          capability: 'crm.write',
          reason: 'again',
          durationSeconds: 60,
          at: AT,
        }),
      );
      expect(await store.accessRequests.get(people.alice, opened.id, AT)).toMatchObject({
        status: 'pending',
      });
      const next = {
        tenantId: 'acme',
        keyId: 'acme-k2',
        publicKey: 'cHVibGlj',
        algorithm: 'ed25519' as const,
        createdAt: AT.toISOString(),
      };
      await raced(adapter.name, store, OPS.keys, keyRotation(next));
      expect((await store.keys.active('acme'))?.keyId).toBe('acme-k2');
    });
  });
}
