import { afterEach, describe, expect, it } from 'vitest';
import { presentGrant, recordGrantEffect, type EffectOps } from '../../src/core/effect.js';
import { SvcError } from '../../src/core/errors.js';
import { runAsync, runSync, type Async } from '../../src/core/use-case.js';
import { effectOpsIn } from '../../src/store/postgres/effects.js';
import { lockTenant } from '../../src/store/postgres/locks.js';
import type { PgStore } from '../../src/store/postgres/store.js';
import type { Store } from '../../src/store/ports.js';
import { effectOps } from '../../src/store/sqlite/effects.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { capability, register } from '../helpers/registry.js';

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
  await register(f.store, 'acme', {
    caps: [capability('acme', 'crm.read')],
    grants: [['bot', 'crm.read']],
    tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n, actors: ['bot'] }],
  });
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

const conflict = (err: unknown, what: string) => {
  expect(err).toBeInstanceOf(SvcError);
  expect(err).toMatchObject({
    kind: 'conflict',
    message: `${what} changed 0 rows, not one: the state it was decided on no longer holds; retry`,
  });
};

async function failure(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('a grant that another writer changed between the read and the write', () => {
  let f: Fixture<Store> | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await f?.close();
    await drop?.();
    f = drop = undefined;
  });

  it('sqlite: presentation and effect record fail with a coded conflict and roll back', async () => {
    const sqlite = await fixture();
    f = sqlite;
    const grantId = await mintGrant(sqlite);
    const db = sqlite.store.db;
    const bot = (await sqlite.store.actors.get('acme', 'bot'))!;
    const clock = () => sqlite.now.value;
    const ops = effectOps(db);
    // The single writer admits no second connection mid-transaction: the racer writes on this one.
    const racedPresent: EffectOps = {
      ...ops,
      markPresented: (...args) => {
        db.prepare("UPDATE grants SET presented_by = 'alice' WHERE id = ?").run(grantId);
        return ops.markPresented(...args);
      },
    };
    const present = db.transaction(() => runSync(presentGrant('acme', grantId, bot, clock), racedPresent));
    conflict(await failure(() => present.immediate()), `the presentation of grant ${grantId}`);
    expect(db.prepare('SELECT presented_by FROM grants WHERE id = ?').pluck().get(grantId)).toBeNull();

    await sqlite.store.effects.presentGrant('acme', grantId, bot);
    const racedEffect: EffectOps = {
      ...ops,
      markEffectRecorded: (...args) => {
        db.prepare("UPDATE grants SET effect_recorded_at = 'x' WHERE id = ?").run(grantId);
        return ops.markEffectRecorded(...args);
      },
    };
    const record = db.transaction(() =>
      runSync(recordGrantEffect('acme', grantId, bot, effect, clock), racedEffect),
    );
    conflict(await failure(() => record.immediate()), `the effect record of grant ${grantId}`);
    expect(db.prepare('SELECT effect_recorded_at FROM grants WHERE id = ?').pluck().get(grantId)).toBeNull();
    expect(db.prepare("SELECT count(*) FROM journal WHERE kind = 'grant_effect'").pluck().get()).toBe(0);
  });

  it.skipIf('skip' in server)(
    'postgres: presentation and effect record fail with a coded conflict',
    async () => {
      const fresh = await freshDatabase();
      drop = fresh.drop;
      const pg = await fixture({ postgres: fresh.url });
      f = pg;
      const grantId = await mintGrant(pg);
      const db = (pg.store as PgStore).db;
      const bot = (await pg.store.actors.get('acme', 'bot'))!;
      const clock = () => pg.now.value;
      const inTenant = <T>(fn: (ops: Async<EffectOps>) => Promise<T>) =>
        db.tx(async (tx) => {
          await lockTenant(tx, 'acme');
          return fn(effectOpsIn(tx));
        });

      // Another connection (a replica that skipped the lock) presents the grant first.
      const presented = await failure(() =>
        inTenant((ops) =>
          runAsync(presentGrant('acme', grantId, bot, clock), {
            ...ops,
            markPresented: async (...args) => {
              await db.query("UPDATE grants SET presented_by = 'alice' WHERE id = $1", [grantId]);
              return ops.markPresented(...args);
            },
          }),
        ),
      );
      conflict(presented, `the presentation of grant ${grantId}`);
      await db.query('UPDATE grants SET presented_by = NULL WHERE id = $1', [grantId]);

      await pg.store.effects.presentGrant('acme', grantId, bot);
      const recorded = await failure(() =>
        inTenant((ops) =>
          runAsync(recordGrantEffect('acme', grantId, bot, effect, clock), {
            ...ops,
            markEffectRecorded: async (...args) => {
              await db.query("UPDATE grants SET effect_recorded_at = 'x' WHERE id = $1", [grantId]);
              return ops.markEffectRecorded(...args);
            },
          }),
        ),
      );
      conflict(recorded, `the effect record of grant ${grantId}`);
      expect(await db.query("SELECT 1 FROM journal WHERE kind = 'grant_effect'")).toEqual([]);
    },
  );
});
