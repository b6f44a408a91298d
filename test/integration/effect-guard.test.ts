import { describe, expect, it } from 'vitest';
import { presentGrant, recordGrantEffect } from '../../src/core/effect.js';
import { runAsync, runSync } from '../../src/core/use-case.js';
import { effectOpsIn } from '../../src/store/postgres/effects.js';
import type { Store } from '../../src/store/ports.js';
import { effectOps } from '../../src/store/sqlite/effects.js';
import type { Fixture } from '../helpers/fixture.js';
import { expectConflict, inTenant, pgDb, raceStores } from '../helpers/guard-race.js';
import { beforeOp, thrown } from '../helpers/op-race.js';
import { pgAvailable } from '../helpers/postgres.js';
import { registerBotReader } from '../helpers/registry.js';

/**
 * Presenting a grant and journaling its effect write only on the state they were decided on
 * (not presented yet; presented by the caller and not journaled yet), and must change one
 * row. Another writer changing the grant between the read and the write (which the single
 * writer and the tenant lock rule out today) fails the call with the coded conflict, and
 * nothing of it is kept.
 */
const server = await pgAvailable();
const effect = { status: 'succeeded' as const, effectId: 'fx-1', detail: null };

/** A grant of crm.read minted for bot; its id. */
async function mintGrant(f: Fixture<Store>): Promise<string> {
  await registerBotReader(f.store);
  const r = await f.app.inject({
    method: 'POST',
    url: '/v1/action',
    headers: { authorization: `Bearer ${await f.token('acme', 'bot')}` },
    payload: {
      tenant_id: 'acme',
      actor_id: 'bot',
      capability: 'crm.read',
      action: 'read',
      task_id: 't1',
      effect_key_step: 's1',
    },
  });
  expect(r.statusCode).toBe(200);
  return r.json().grant.grant_id as string;
}

describe('a grant that another writer changed between the read and the write', () => {
  const stores = raceStores();

  it('sqlite: presentation and effect record fail with a coded conflict and roll back', async () => {
    const sqlite = await stores.sqlite();
    const grantId = await mintGrant(sqlite);
    const db = sqlite.store.db;
    const bot = (await sqlite.store.actors.get('acme', 'bot'))!;
    const clock = () => sqlite.now.value;
    const ops = effectOps(db);
    // The single writer admits no second connection mid-transaction: the racer writes on this one.
    const racedPresent = beforeOp(ops, 'markPresented', () =>
      db.prepare("UPDATE grants SET presented_by = 'alice' WHERE id = ?").run(grantId),
    );
    const present = db.transaction(() => runSync(presentGrant('acme', grantId, bot, clock), racedPresent));
    expectConflict(await thrown(() => present.immediate()), `the presentation of grant ${grantId}`);
    expect(db.prepare('SELECT presented_by FROM grants WHERE id = ?').pluck().get(grantId)).toBeNull();

    await sqlite.store.effects.presentGrant('acme', grantId, bot);
    const racedEffect = beforeOp(ops, 'markEffectRecorded', () =>
      db.prepare("UPDATE grants SET effect_recorded_at = 'x' WHERE id = ?").run(grantId),
    );
    const record = db.transaction(() =>
      runSync(recordGrantEffect('acme', grantId, bot, effect, clock), racedEffect),
    );
    expectConflict(await thrown(() => record.immediate()), `the effect record of grant ${grantId}`);
    expect(db.prepare('SELECT effect_recorded_at FROM grants WHERE id = ?').pluck().get(grantId)).toBeNull();
    expect(db.prepare("SELECT count(*) FROM journal WHERE kind = 'grant_effect'").pluck().get()).toBe(0);
  });

  it.skipIf('skip' in server)(
    'postgres: presentation and effect record fail with a coded conflict',
    async () => {
      const pg = await stores.postgres();
      const grantId = await mintGrant(pg);
      const db = pgDb(pg);
      const bot = (await pg.store.actors.get('acme', 'bot'))!;
      const clock = () => pg.now.value;

      // Another connection (a replica that skipped the lock) presents the grant first.
      const presented = await thrown(() =>
        inTenant(pg, effectOpsIn, (ops) =>
          runAsync(
            presentGrant('acme', grantId, bot, clock),
            beforeOp(ops, 'markPresented', () =>
              db.query("UPDATE grants SET presented_by = 'alice' WHERE id = $1", [grantId]),
            ),
          ),
        ),
      );
      expectConflict(presented, `the presentation of grant ${grantId}`);
      await db.query('UPDATE grants SET presented_by = NULL WHERE id = $1', [grantId]);

      await pg.store.effects.presentGrant('acme', grantId, bot);
      const recorded = await thrown(() =>
        inTenant(pg, effectOpsIn, (ops) =>
          runAsync(
            recordGrantEffect('acme', grantId, bot, effect, clock),
            beforeOp(ops, 'markEffectRecorded', () =>
              db.query("UPDATE grants SET effect_recorded_at = 'x' WHERE id = $1", [grantId]),
            ),
          ),
        ),
      );
      expectConflict(recorded, `the effect record of grant ${grantId}`);
      expect(await db.query("SELECT 1 FROM journal WHERE kind = 'grant_effect'")).toEqual([]);
    },
  );
});
