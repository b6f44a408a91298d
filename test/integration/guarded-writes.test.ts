/**
 * Item 2 of issue 24: a write that depends on prior state names the state it expects and
 * must change exactly one row, on both stores, or the use case fails with a coded conflict
 * and nothing of it is written. A competing writer is put between the pipeline's read and
 * its writes (which the single writer and the tenant lock otherwise rule out), on a real
 * SQLite file and a real PostgreSQL database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admits } from '../../src/core/constraints.js';
import { decision, type DecisionOps } from '../../src/core/decision/pipeline.js';
import type { DecisionWrites } from '../../src/core/decision/writes.js';
import { runAsync, runSync } from '../../src/core/use-case.js';
import { PolicyCache } from '../../src/daemon/policy-cache.js';
import type { Sealed } from '../../src/store/decision-ports.js';
import type { Store } from '../../src/store/ports.js';
import { PgCommitQueue } from '../../src/store/postgres/commit-queue.js';
import { PgDb } from '../../src/store/postgres/database.js';
import { PgDecisions } from '../../src/store/postgres/decisions.js';
import { lockTenant } from '../../src/store/postgres/locks.js';
import { replicaOwner } from '../../src/store/postgres/replica.js';
import { SqliteDecisions } from '../../src/store/sqlite/decisions.js';
import type { SqliteStore } from '../../src/store/sqlite/store.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { bot, request } from '../helpers/pg-seed.js';
import { capabilityRecord, taskRecord } from '../helpers/registry-records.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';

const rules = { policy: new PolicyCache(), constraints: admits };
const server = await pgAvailable();

/** Registers an irreversible tier-4 capability for bot (so a request defers) and a task. */
async function provision(f: Fixture<Store>): Promise<void> {
  const at = f.now.value.toISOString();
  await f.store.capabilities.put(
    capabilityRecord('acme', 'payments.send', at, { tier: 4, irreversible: true, actions: ['write'] }),
  );
  await f.store.permissions.grant({
    tenantId: 'acme',
    actorId: 'bot',
    capability: 'payments.send',
    grantedAt: at,
  });
  await f.store.policies.set('acme', 'permit (principal, action, resource);', at);
  await f.store.tasks.create(taskRecord('acme', 'pay', at, { budgetMicros: 10_000_000n }));
}

/** A deferral of `step`, approved by alice: the resume is next. */
async function approvedDeferral(f: Fixture<Store>, step: string): Promise<void> {
  const deferred = (await f.store.decisions.decide(
    request('payments.send', 'pay', step),
    bot,
    'new',
    rules,
  )) as Extract<Sealed, { kind: 'sealed' }>;
  expect(deferred).toMatchObject({ outcome: 'deferred', approval: { status: 'pending' } });
  await f.store.approvals.decide({
    tenantId: 'acme',
    approvalId: deferred.approval!.approvalId,
    deciderId: 'alice',
    decision: 'approve',
    note: null,
    channel: 'api',
    at: f.now.value,
  });
}

/** What a conflicted resume must have left alone. */
async function snapshot(f: Fixture<Store>, step: string) {
  const alice = (await f.store.actors.get('acme', 'alice'))!;
  const approvals = await f.store.approvals.list(alice, { limit: 100 }, {}, f.now.value);
  const receipts = await f.store.receipts.list(alice, { limit: 1000 }, {});
  const task = await f.store.tasks.get('acme', 'pay');
  return {
    approvals: approvals.items.map((a) => [a.id, a.status]),
    receipts: receipts.items.length,
    reserved: task?.reservedMicros,
    step,
  };
}

type Interpose = (writes: DecisionWrites) => Promise<void> | void;

interface Adapter {
  name: string;
  skip?: string;
  open(): Promise<Fixture<Store>>;
  /** the resume pipeline in one transaction of the store, `before` run just before its writes */
  resume(f: Fixture<Store>, step: string, before: Interpose): Promise<Sealed>;
  /** a competing writer's change to the effect key (another resume claimed it) */
  steal(f: Fixture<Store>, step: string): Promise<void> | void;
  close(): Promise<void>;
}

const pgState: { fresh?: Awaited<ReturnType<typeof freshDatabase>>; other?: PgDb; db?: PgDb } = {};

const adapters: Adapter[] = [
  {
    name: 'SQLite',
    open: () => fixture() as Promise<Fixture<Store>>,
    resume(f, step, before) {
      const db = (f.store as SqliteStore).db;
      const ops = new SqliteDecisions(db, () => f.now.value).ops;
      const interposed: DecisionOps = { ...ops, apply: (w) => (before(w), ops.apply(w)) };
      // The same transaction the commit queue opens, on the store's one connection.
      const run = db.transaction(() =>
        runSync(
          decision(request('payments.send', 'pay', step), bot, 'resume', rules, () => f.now.value),
          interposed,
        ),
      );
      return Promise.resolve().then(() => run.immediate());
    },
    steal(f, step) {
      // Inside the open transaction, on the same connection: the single writer has no other.
      (f.store as SqliteStore).db
        .prepare(
          "UPDATE effect_keys SET state = 'claimed' WHERE tenant_id = 'acme' AND task_id = 'pay' AND step = ?",
        )
        .run(step);
    },
    close: async () => undefined,
  },
  {
    name: 'PostgreSQL',
    ...('skip' in server ? { skip: server.skip } : {}),
    async open() {
      pgState.fresh = await freshDatabase();
      pgState.db = new PgDb(pgState.fresh.url, { poolSize: 2 });
      pgState.other = new PgDb(pgState.fresh.url, { poolSize: 1 });
      return (await fixture({ postgres: pgState.fresh.url })) as Fixture<Store>;
    },
    resume(f, step, before) {
      const d = new PgDecisions(new PgCommitQueue(pgState.db!), () => f.now.value, replicaOwner('test'));
      return pgState.db!.tx(async (tx) => {
        await lockTenant(tx, 'acme');
        const ops = d.opsIn(tx);
        return runAsync(
          decision(request('payments.send', 'pay', step), bot, 'resume', rules, () => f.now.value),
          {
            ...ops,
            apply: async (w) => (await before(w), ops.apply(w)),
          },
        );
      });
    },
    async steal(_f, step) {
      // Another connection, committed at once: the tenant lock is advisory and this writer skips it.
      await pgState.other!.query(
        "UPDATE effect_keys SET state = 'claimed' WHERE tenant_id = 'acme' AND task_id = 'pay' AND step = $1",
        [step],
      );
    },
    async close() {
      await pgState.db?.close();
      await pgState.other?.close();
      await pgState.fresh?.drop();
    },
  },
];

for (const a of adapters) {
  describe.skipIf(a.skip !== undefined)(`guarded writes on ${a.name}`, () => {
    let f: Fixture<Store>;
    beforeAll(async () => {
      f = await a.open();
      await provision(f);
    });
    afterAll(async () => {
      await f?.close();
      await a.close();
    });

    it('a resume whose deferral was taken between its read and its write fails with a coded conflict, and writes nothing', async () => {
      await approvedDeferral(f, 'stolen');
      const before = await snapshot(f, 'stolen');
      let planned: DecisionWrites | undefined;
      const err = await a
        .resume(f, 'stolen', async (w) => {
          planned = w;
          await a.steal(f, 'stolen');
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      // the plan consumed the approval and claimed the deferral, expecting it as it was read
      expect(planned?.effectKey).toMatchObject({ op: 'claim', expect: { state: 'deferred' } });
      expect(err).toMatchObject({
        code: 'conflict',
        message: expect.stringMatching(
          /^the deferral this resume holds changed 0 rows, not one: the state it was decided on no longer holds; retry$/,
        ),
      });
      // the approval is still approved, no money reserved, no record journaled
      expect(await snapshot(f, 'stolen')).toEqual(before);
    });

    it('the same resume with nothing in between is allowed and consumes the approval', async () => {
      await approvedDeferral(f, 'kept');
      const sealed = await a.resume(f, 'kept', () => undefined);
      expect(sealed).toMatchObject({ kind: 'sealed', outcome: 'allowed', approval: { status: 'consumed' } });
    });
  });
}
