import { afterAll, describe, expect, it } from 'vitest';
import { accessRequest, type AccessRequestOps } from '../../src/core/access-request.js';
import type { Actor } from '../../src/core/actor.js';
import { approvalDecision, type ApprovalDecisionOps } from '../../src/core/approval-decision.js';
import { admits } from '../../src/core/constraints.js';
import { decision, type DecisionOps } from '../../src/core/decision/pipeline.js';
import {
  entitlementRevocation,
  type EntitlementRevocationOps,
} from '../../src/core/entitlement-revocation.js';
import { revokeSurface, type SurfaceOps } from '../../src/core/surface-change.js';
import { runAsync, runSync, type Async, type Operations, type UseCase } from '../../src/core/use-case.js';
import { PolicyCache } from '../../src/daemon/policy-cache.js';
import type { Store } from '../../src/store/ports.js';
import type { ApprovalRecord } from '../../src/store/query-ports.js';
import { accessRequestOpsIn } from '../../src/store/postgres/access-requests.js';
import type { PgTx } from '../../src/store/postgres/database.js';
import { entitlementRevocationOpsIn } from '../../src/store/postgres/entitlements.js';
import { lockTenant } from '../../src/store/postgres/locks.js';
import type { PgStore } from '../../src/store/postgres/store.js';
import { surfaceOpsIn } from '../../src/store/postgres/surfaces.js';
import { accessRequestOps } from '../../src/store/sqlite/access-requests.js';
import type { Db } from '../../src/store/sqlite/database.js';
import { entitlementRevocationOps } from '../../src/store/sqlite/entitlements.js';
import type { SqliteStore } from '../../src/store/sqlite/store.js';
import { surfaceOps } from '../../src/store/sqlite/surfaces.js';
import { writeTransaction } from '../../src/store/sqlite/write-lock.js';
import { contractAdapters, type StoreHarness } from '../contract/harness.js';
import { human, newTenant, T0 } from '../contract/cases/fixtures.js';
import { thrown } from '../helpers/op-race.js';
import { request } from '../helpers/pg-seed.js';
import { capabilityRecord, taskRecord } from '../helpers/registry-records.js';

/**
 * The outbox on real databases: a change and the event that reports it commit or roll back
 * together. Each use case runs in one store transaction with its event write followed by an
 * injected failure, as a crash or a failing later write would: neither the change nor the
 * event nor any delivery remains. (The events written by committed changes, and none without
 * a subscriber, are in the store contract: test/contract/cases/notify.ts.)
 */

const AT = new Date('2026-03-01T10:30:00.000Z');
const INJECTED = 'injected failure after the event was written';

const people = {
  alice: human('acme', 'alice', { roles: ['administrator', 'approver'] }),
  owner: human('acme', 'owner', { roles: [] }),
  carol: human('acme', 'carol', { roles: ['approver'] }),
  bot: human('acme', 'bot', { kind: 'agent', roles: [], managerId: 'alice' }) as Actor,
};

type Written = 'writeEvent' | 'stageRefusal';

/** The operations with `written` made to fail just after it wrote (the event is in the transaction). */
function failAfterEvent<P>(ops: P, written: Written): P {
  const write = (ops as Record<Written, (...a: unknown[]) => unknown>)[written];
  const failing = (...args: unknown[]) => {
    const done = write.apply(ops, args);
    if (done instanceof Promise)
      return done.then(() => {
        throw new Error(INJECTED);
      });
    throw new Error(INJECTED);
  };
  return { ...ops, [written]: failing };
}

/** Runs `useCase` in one store transaction (SQLite's write transaction, PostgreSQL under the tenant lock). */
function inTransaction<P extends Operations<P>, R>(
  name: StoreHarness['name'],
  store: Store,
  ops: { sqlite: (db: Db) => P; pg: (tx: PgTx) => Async<P> },
  useCase: UseCase<P, R>,
  written: Written = 'writeEvent',
): Promise<R> {
  if (name === 'sqlite') {
    const db = (store as SqliteStore).db;
    return writeTransaction(db, () => runSync(useCase, failAfterEvent(ops.sqlite(db), written)));
  }
  return (store as PgStore).db.tx(async (tx) => {
    await lockTenant(tx, 'acme');
    return runAsync(useCase, failAfterEvent(ops.pg(tx), written));
  });
}

/** Tenant acme with a destination taking every event, an owner, agent bot, a requestable capability and a paid one. */
async function tenant(store: Store): Promise<void> {
  await store.tenants.create(newTenant('acme', { admin: 'alice' }));
  await store.actors.add(people.owner);
  await store.actors.add(people.carol);
  await store.actors.add(people.bot);
  await store.capabilities.put(
    capabilityRecord('acme', 'crm.write', T0, {
      tier: 2,
      actions: ['write'],
      costMicros: 0n,
      requestable: true,
      owners: ['owner'],
    }),
  );
  await store.capabilities.put(
    capabilityRecord('acme', 'payments.send', T0, { tier: 4, irreversible: true, actions: ['write'] }),
  );
  await store.permissions.grant({
    tenantId: 'acme',
    actorId: 'bot',
    capability: 'payments.send',
    grantedAt: T0,
  });
  await store.policies.set('acme', 'permit (principal, action, resource);', T0);
  await store.tasks.create(taskRecord('acme', 't1', T0));
  await store.notify.addDestination({
    tenantId: 'acme',
    id: 'all',
    kind: 'webhook',
    url: 'https://hooks.example.org/all',
    events: ['*'],
    secretName: 'notify.all',
    enabled: true,
    disabledReason: null,
    settings: {},
    remindAfterSeconds: null,
    escalateTo: null,
    createdAt: T0,
  });
}

const deliveries = (store: Store) => store.notify.deliveries('acme', { limit: 100 });
const receipts = async (store: Store) =>
  (await store.receipts.list(people.alice, { limit: 100 }, {})).items.length;

for (const adapter of await contractAdapters()) {
  if (adapter.skip !== undefined) console.warn(`outbox rollback on ${adapter.name} skipped: ${adapter.skip}`);
  describe.skipIf(adapter.skip !== undefined)(`outbox rollback: ${adapter.name}`, () => {
    let harness: StoreHarness | undefined;
    const h = (): StoreHarness => (harness ??= adapter.harness());
    afterAll(async () => {
      await harness?.cleanup();
    });
    const open = async () => {
      const store = await h().open({ clock: () => AT });
      await tenant(store);
      return store;
    };

    it('access_request.created: the request and its event roll back together', async () => {
      const store = await open();
      const err = await thrown(() =>
        inTransaction<AccessRequestOps, unknown>(
          adapter.name,
          store,
          { sqlite: accessRequestOps, pg: accessRequestOpsIn },
          accessRequest({
            tenantId: 'acme',
            actorId: 'bot',
            capability: 'crm.write',
            reason: 'x',
            durationSeconds: 60,
            at: AT,
          }),
        ),
      );
      expect(err.message).toBe(INJECTED);
      expect(await store.managerCards.list(people.owner, {}, AT)).toEqual([]);
      expect(await deliveries(store)).toEqual([]);
      expect(await receipts(store)).toBe(0);
    });

    it('entitlement.revoked: the entitlement stays active and no event remains', async () => {
      const store = await open();
      const { request: r } = await store.accessRequests.request({
        tenantId: 'acme',
        actorId: 'bot',
        capability: 'crm.write',
        reason: 'x',
        durationSeconds: 3600,
        at: AT,
      });
      const decided = await store.managerCards.decide({
        tenantId: 'acme',
        cardId: r.cards[0]!.cardId,
        deciderId: r.cards[0]!.recipientId,
        decision: 'approve',
        note: null,
        at: AT,
      });
      const before = (await deliveries(store)).length;
      const before2 = await receipts(store);
      expect(before).toBe(2); // access_request.created, manager_card.decided
      const err = await thrown(() =>
        inTransaction<EntitlementRevocationOps, unknown>(
          adapter.name,
          store,
          { sqlite: entitlementRevocationOps, pg: entitlementRevocationOpsIn },
          entitlementRevocation(people.alice, decided.entitlement!.id, null, AT),
        ),
      );
      expect(err.message).toBe(INJECTED);
      expect(await store.entitlements.get(people.alice, decided.entitlement!.id, AT)).toMatchObject({
        status: 'active',
      });
      expect((await deliveries(store)).map((d) => d.eventType).sort()).toEqual([
        'access_request.created',
        'manager_card.decided',
      ]);
      expect(await receipts(store)).toBe(before2);
    });

    it('integration.surface_revoked: the surface stays active and no event remains', async () => {
      const store = await open();
      const err = await thrown(() =>
        inTransaction<SurfaceOps, unknown>(
          adapter.name,
          store,
          { sqlite: surfaceOps, pg: surfaceOpsIn },
          revokeSurface('acme', 'crm', { documentRef: 'env:CRM_TOKEN', actor: people.alice }, () => AT),
        ),
      );
      expect(err.message).toBe(INJECTED);
      expect(await store.surfaces.get('acme', 'crm')).toBeUndefined();
      expect(await deliveries(store)).toEqual([]);
    });

    it('decision.refused: the refusal and its staged deliveries roll back together', async () => {
      const store = await open();
      const rules = { policy: new PolicyCache(), constraints: admits };
      const pipelineOps = {
        sqlite: () => (store as SqliteStore).decisions.ops,
        pg: (tx: PgTx) => (store as PgStore).decisions.opsIn(tx),
      };
      // bot holds no permission for crm.write: refused, and staged for the destination
      const req = request('crm.write', 't1', 'r1', 1);
      const err = await thrown(() =>
        inTransaction<DecisionOps, unknown>(
          adapter.name,
          store,
          pipelineOps,
          decision(req, people.bot, 'new', rules, () => AT),
          'stageRefusal',
        ),
      );
      expect(err.message).toBe(INJECTED);
      expect(await deliveries(store)).toEqual([]);
      expect((await store.notify.counts('acme')).pending).toBe(0);
      expect(await receipts(store)).toBe(0);
      // committed this time: listed and counted as pending before the loop fans it out
      expect(await store.decisions.decide(req, people.bot, 'new', rules)).toMatchObject({
        outcome: 'refused',
        code: 'not_permitted',
      });
      expect((await deliveries(store)).map((d) => [d.eventType, d.state])).toEqual([
        ['decision.refused', 'pending'],
      ]);
      expect((await store.notify.counts('acme')).pending).toBe(1);
    });

    it('approval.requested and approval.decided: the deferral, the decision and their events roll back', async () => {
      const store = await open();
      const rules = { policy: new PolicyCache(), constraints: admits };
      const pipelineOps = {
        sqlite: () => (store as SqliteStore).decisions.ops,
        pg: (tx: PgTx) => (store as PgStore).decisions.opsIn(tx),
      };
      const req = request('payments.send', 't1', 'p1', 2);
      const err = await thrown(() =>
        inTransaction<DecisionOps, unknown>(
          adapter.name,
          store,
          pipelineOps,
          decision(req, people.bot, 'new', rules, () => AT),
        ),
      );
      expect(err.message).toBe(INJECTED);
      expect((await store.approvals.list(people.alice, { limit: 10 }, {}, AT)).items).toEqual([]);
      expect(await deliveries(store)).toEqual([]);
      expect(await receipts(store)).toBe(0);

      // committed this time; then its decision fails after the event
      const deferred = await store.decisions.decide(req, people.bot, 'new', rules);
      const approvalId = (deferred as { approval: { approvalId: string } }).approval.approvalId;
      expect((await deliveries(store)).map((d) => d.eventType)).toEqual(['approval.requested']);
      type Ops = ApprovalDecisionOps<ApprovalRecord>;
      const approvalOps = {
        sqlite: () => (store.approvals as unknown as { decisionOps(): Ops }).decisionOps(),
        pg: (tx: PgTx) =>
          (store.approvals as unknown as { decisionOpsIn(tx: PgTx): Async<Ops> }).decisionOpsIn(tx),
      };
      const err2 = await thrown(() =>
        inTransaction<Ops, unknown>(
          adapter.name,
          store,
          approvalOps,
          approvalDecision<ApprovalRecord>({
            tenantId: 'acme',
            approvalId,
            deciderId: 'carol',
            decision: 'approve',
            note: null,
            channel: 'cli',
            at: AT,
          }),
        ),
      );
      expect(err2.message).toBe(INJECTED);
      expect(await store.approvals.get(people.alice, approvalId, AT)).toMatchObject({ status: 'pending' });
      expect((await deliveries(store)).map((d) => d.eventType)).toEqual(['approval.requested']);
    });
  });
}
