import { describe, expect, it } from 'vitest';
import { setPolicy } from '../../src/core/policy-version.js';
import { runAsync, runSync } from '../../src/core/use-case.js';
import { policyOpsIn } from '../../src/store/postgres/policies.js';
import { policyOps } from '../../src/store/sqlite/policies.js';
import { expectConflict, inTenant, pgDb, raceStores } from '../helpers/guard-race.js';
import { beforeOp, thrown } from '../helpers/op-race.js';
import { pgAvailable } from '../helpers/postgres.js';

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

const conflict = (err: unknown) => expectConflict(err, 'the policy of tenant acme');

/** `ops` with `race` run before either write the change may make. */
const beforeWrites = <P extends { insertPolicy: unknown; updatePolicy: unknown }>(
  ops: P,
  race: () => unknown,
) => beforeOp(beforeOp(ops, 'insertPolicy', race), 'updatePolicy', race);

describe('a policy that another writer changed between the read and the write', () => {
  const stores = raceStores();

  it('sqlite: fails with a coded conflict and rolls back', async () => {
    const sqlite = await stores.sqlite();
    const db = sqlite.store.db;
    const before = await sqlite.store.policies.get('acme');
    const registry = () => db.prepare("SELECT registry_version FROM tenants WHERE id = 'acme'").pluck().get();
    const version = registry();
    // The single writer admits no second connection mid-transaction: the racer writes on this one.
    const raced = beforeWrites(policyOps(db), () => db.prepare(RACER).run());
    conflict(
      await thrown(() => db.transaction(() => runSync(setPolicy('acme', TEXT, 'now'), raced)).immediate()),
    );
    expect(await sqlite.store.policies.get('acme')).toEqual(before);
    expect(registry()).toBe(version);
  });

  it.skipIf('skip' in server)(
    'postgres: fails with a coded conflict; the other writer’s version stands',
    async () => {
      const pg = await stores.postgres();
      const db = pgDb(pg);
      const before = await pg.store.policies.get('acme');
      const err = await thrown(() =>
        inTenant(pg, policyOpsIn, (ops) =>
          // Another connection (a replica that skipped the lock) commits its version first.
          runAsync(
            setPolicy('acme', TEXT, 'now'),
            beforeWrites(ops, () => db.query(RACER)),
          ),
        ),
      );
      conflict(err);
      expect(await pg.store.policies.get('acme')).toMatchObject({
        text: 'racer',
        version: (before?.version ?? 0) + 1,
      });
    },
  );
});
