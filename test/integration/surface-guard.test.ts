import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/core/actor.js';
import { revokeSurface, rotateSurface } from '../../src/core/surface-change.js';
import { runAsync, runSync } from '../../src/core/use-case.js';
import { surfaceOpsIn } from '../../src/store/postgres/surfaces.js';
import { surfaceOps } from '../../src/store/sqlite/surfaces.js';
import { expectConflict, inTenant, pgDb, raceStores } from '../helpers/guard-race.js';
import { beforeOp, thrown } from '../helpers/op-race.js';
import { pgAvailable } from '../helpers/postgres.js';

/**
 * A surface change writes only on the state it was decided on (no row yet, or the row it
 * read) and must change one row. Another writer changing the surface between the read and
 * the write (which the single writer and the tenant lock rule out today) fails the change
 * with the coded conflict: nothing of it is kept, and no receipt is journaled.
 */
const server = await pgAvailable();
const racer = ['acme', 'crm', 'env:RACER', '[]', 'active', null, null, 'alice', '2026-06-01T11:00:00.000Z'];
const INSERT = `INSERT INTO surface_states (tenant_id, surface_id, credential_ref, retired_refs, status, rotated_at,
  revoked_at, updated_by, updated_at)`;

const conflict = (err: unknown) => expectConflict(err, 'the state of surface crm');

describe('a surface that another writer changed between the read and the write', () => {
  const stores = raceStores();
  const rotate = (clock: () => Date, alice: Actor) =>
    rotateSurface('acme', 'crm', { documentRef: 'env:CRM', next: 'env:CRM_2', actor: alice }, clock);
  const revoke = (clock: () => Date, alice: Actor) =>
    revokeSurface('acme', 'crm', { documentRef: 'env:CRM', actor: alice }, clock);

  it('sqlite: a first state and a changed one both fail with a coded conflict and roll back', async () => {
    const sqlite = await stores.sqlite();
    const db = sqlite.store.db;
    const alice = (await sqlite.store.actors.get('acme', 'alice'))!;
    const clock = () => sqlite.now.value;
    const ops = surfaceOps(db);
    const journaled = () =>
      db.prepare("SELECT count(*) FROM journal WHERE kind = 'integration_op'").pluck().get();
    // The single writer admits no second connection mid-transaction: the racer writes on this one.
    const racedInsert = beforeOp(ops, 'insertSurface', () =>
      db.prepare(`${INSERT} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(...racer),
    );
    conflict(
      await thrown(() => db.transaction(() => runSync(rotate(clock, alice), racedInsert)).immediate()),
    );
    expect(await sqlite.store.surfaces.get('acme', 'crm')).toBeUndefined();

    await sqlite.store.surfaces.rotate('acme', 'crm', {
      documentRef: 'env:CRM',
      next: 'env:CRM_2',
      actor: alice,
    });
    const before = await sqlite.store.surfaces.get('acme', 'crm');
    const racedUpdate = beforeOp(ops, 'updateSurface', () =>
      db.prepare("UPDATE surface_states SET credential_ref = 'env:RACER' WHERE surface_id = 'crm'").run(),
    );
    conflict(
      await thrown(() => db.transaction(() => runSync(revoke(clock, alice), racedUpdate)).immediate()),
    );
    expect(await sqlite.store.surfaces.get('acme', 'crm')).toEqual(before);
    expect(journaled()).toBe(1);
  });

  it.skipIf('skip' in server)(
    'postgres: a first state and a changed one both fail with a coded conflict',
    async () => {
      const pg = await stores.postgres();
      const db = pgDb(pg);
      const alice = (await pg.store.actors.get('acme', 'alice'))!;
      const clock = () => pg.now.value;

      // Another connection (a replica that skipped the lock) commits its change first.
      conflict(
        await thrown(() =>
          inTenant(pg, surfaceOpsIn, (ops) =>
            runAsync(
              rotate(clock, alice),
              beforeOp(ops, 'insertSurface', () =>
                db.query(`${INSERT} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, racer),
              ),
            ),
          ),
        ),
      );
      expect(await pg.store.surfaces.get('acme', 'crm')).toMatchObject({ credentialRef: 'env:RACER' });

      conflict(
        await thrown(() =>
          inTenant(pg, surfaceOpsIn, (ops) =>
            runAsync(
              revoke(clock, alice),
              beforeOp(ops, 'updateSurface', () =>
                db.query("UPDATE surface_states SET credential_ref = 'env:OTHER' WHERE surface_id = 'crm'"),
              ),
            ),
          ),
        ),
      );
      expect(await pg.store.surfaces.get('acme', 'crm')).toMatchObject({
        credentialRef: 'env:OTHER',
        status: 'active',
      });
      expect(await db.query("SELECT 1 FROM journal WHERE kind = 'integration_op'")).toEqual([]);
    },
  );
});
