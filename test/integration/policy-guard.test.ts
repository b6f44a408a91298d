import { afterEach, describe, expect, it } from 'vitest';
import { SvcError } from '../../src/core/errors.js';
import { setPolicy, type PolicyOps } from '../../src/core/policy-version.js';
import { runAsync, runSync } from '../../src/core/use-case.js';
import { lockTenant } from '../../src/store/postgres/locks.js';
import { policyOpsIn } from '../../src/store/postgres/policies.js';
import type { PgStore } from '../../src/store/postgres/store.js';
import type { Store } from '../../src/store/ports.js';
import { policyOps } from '../../src/store/sqlite/policies.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';

/**
 * A policy change writes version n + 1 only where version n (or no policy) is still stored,
 * and must change one row. Another writer storing its version between the read and the write
 * (which the single writer and the tenant lock rule out today) fails the change with the
 * coded conflict: two texts never share a version, and the registry does not move.
 */
const server = await pgAvailable();
const TEXT = 'forbid(principal, action, resource);';
/** Another writer's next version: the first, or the one after what is stored (both dialects). */
const RACER = `INSERT INTO policies (tenant_id, version, text, updated_at) VALUES ('acme', 1, 'racer', 'x')
  ON CONFLICT (tenant_id) DO UPDATE SET version = policies.version + 1, text = 'racer'`;

const conflict = (err: unknown) => {
  expect(err).toBeInstanceOf(SvcError);
  expect(err).toMatchObject({
    kind: 'conflict',
    message:
      'the policy of tenant acme changed 0 rows, not one: the state it was decided on no longer holds; retry',
  });
};

async function failure(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the change to fail');
}

describe('a policy that another writer changed between the read and the write', () => {
  let f: Fixture<Store> | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await f?.close();
    await drop?.();
    f = drop = undefined;
  });

  it('sqlite: fails with a coded conflict and rolls back', async () => {
    const sqlite = await fixture();
    f = sqlite;
    const db = sqlite.store.db;
    const before = await sqlite.store.policies.get('acme');
    const registry = () => db.prepare("SELECT registry_version FROM tenants WHERE id = 'acme'").pluck().get();
    const version = registry();
    const ops = policyOps(db);
    // The single writer admits no second connection mid-transaction: the racer writes on this one.
    const raced: PolicyOps = {
      ...ops,
      insertPolicy: (r) => {
        db.prepare(RACER).run();
        return ops.insertPolicy(r);
      },
      updatePolicy: (r, expected) => {
        db.prepare(RACER).run();
        return ops.updatePolicy(r, expected);
      },
    };
    conflict(
      await failure(() => db.transaction(() => runSync(setPolicy('acme', TEXT, 'now'), raced)).immediate()),
    );
    expect(await sqlite.store.policies.get('acme')).toEqual(before);
    expect(registry()).toBe(version);
  });

  it.skipIf('skip' in server)(
    'postgres: fails with a coded conflict; the other writer’s version stands',
    async () => {
      const fresh = await freshDatabase();
      drop = fresh.drop;
      const pg = await fixture({ postgres: fresh.url });
      f = pg;
      const db = (pg.store as PgStore).db;
      const before = await pg.store.policies.get('acme');
      const err = await failure(() =>
        db.tx(async (tx) => {
          await lockTenant(tx, 'acme');
          const ops = policyOpsIn(tx);
          // Another connection (a replica that skipped the lock) commits its version first.
          return runAsync(setPolicy('acme', TEXT, 'now'), {
            ...ops,
            insertPolicy: async (r) => {
              await db.query(RACER);
              return ops.insertPolicy(r);
            },
            updatePolicy: async (r, expected) => {
              await db.query(RACER);
              return ops.updatePolicy(r, expected);
            },
          });
        }),
      );
      conflict(err);
      expect(await pg.store.policies.get('acme')).toMatchObject({
        text: 'racer',
        version: (before?.version ?? 0) + 1,
      });
    },
  );
});
