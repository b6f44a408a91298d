import { afterEach, describe, expect, it } from 'vitest';
import { signHead, type AnchorOps } from '../../src/core/anchor.js';
import { SvcError } from '../../src/core/errors.js';
import { runAsync, runSync, type Async } from '../../src/core/use-case.js';
import { Keyring } from '../../src/store/keyring.js';
import { anchorOpsIn } from '../../src/store/postgres/anchors.js';
import { lockTenant } from '../../src/store/postgres/locks.js';
import type { PgStore } from '../../src/store/postgres/store.js';
import type { Store } from '../../src/store/ports.js';
import { anchorOps } from '../../src/store/sqlite/anchors.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { decide } from '../helpers/real-export.js';
import { capability, register } from '../helpers/registry.js';

/**
 * Anchoring inserts a head only where none is stored at its size, and must insert one row.
 * Another writer storing a head there between the read and the insert (which the single
 * writer and the tenant lock rule out today) fails the anchor with the coded conflict; the
 * other writer's head stands and nothing of this one is kept.
 */
const server = await pgAvailable();

async function journalOfTwo(f: Fixture<Store>): Promise<void> {
  await register(f.store, 'acme', {
    caps: [capability('acme', 'crm.read')],
    grants: [['bot', 'crm.read']],
    tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n, actors: ['bot'] }],
  });
  const bot = await f.token('acme', 'bot');
  for (const step of ['s1', 's2']) expect(await decide(f as Fixture, bot, step)).toBe(200);
}

/** A head of size 2 as another writer would store it: a row of the anchors table, columns in order. */
async function racingHead(f: Fixture<Store>): Promise<unknown[]> {
  const key = await f.store.keys.active('acme');
  return ['acme', 2, 'ab'.repeat(32), '2026-06-01T12:00:01.000Z', 'c2lnbmF0dXJl', key!.keyId, 'ed25519'];
}

const refusal = (err: unknown) => {
  expect(err).toBeInstanceOf(SvcError);
  expect(err).toMatchObject({
    kind: 'conflict',
    message:
      'the head of tenant acme at size 2 changed 0 rows, not one: the state it was decided on no longer holds; retry',
  });
};

describe('anchoring a head that another writer stored first', () => {
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
    await journalOfTwo(sqlite);
    const signer = await new Keyring(sqlite.dir, sqlite.store).signer('acme');
    const row = await racingHead(sqlite);
    const ops = anchorOps(sqlite.store.db);
    // The single writer admits no second connection mid-transaction: the racer writes on this one.
    const raced: AnchorOps = {
      ...ops,
      insertHead: (anchor) => {
        sqlite.store.db
          .prepare(
            `INSERT INTO anchors (tenant_id, tree_size, root_hash, signed_at, signature, key_id, algorithm)
             VALUES (?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(...row);
        return ops.insertHead(anchor);
      },
    };
    const sign = sqlite.store.db.transaction(() =>
      runSync(signHead('acme', signer, '2026-06-01T12:00:02.000Z'), raced),
    );
    let err: unknown;
    try {
      sign.immediate();
    } catch (e) {
      err = e;
    }
    refusal(err);
    expect(await sqlite.store.anchors.list('acme')).toEqual([]);
  });

  it.skipIf('skip' in server)(
    'postgres: fails with a coded conflict; the other replica’s head stands',
    async () => {
      const fresh = await freshDatabase();
      drop = fresh.drop;
      const pg = await fixture({ postgres: fresh.url });
      f = pg;
      await journalOfTwo(pg);
      const signer = await new Keyring(pg.dir, pg.store).signer('acme');
      const row = await racingHead(pg);
      const db = (pg.store as PgStore).db;
      let err: unknown;
      try {
        await db.tx(async (tx) => {
          await lockTenant(tx, 'acme');
          const ops = anchorOpsIn(tx);
          const raced: Async<AnchorOps> = {
            ...ops,
            // Another connection (a replica that skipped the lock) commits a head at this size first.
            insertHead: async (anchor) => {
              await db.query(
                `INSERT INTO anchors (tenant_id, tree_size, root_hash, signed_at, signature, key_id, algorithm)
               VALUES ($1, $2, $3, $4, $5, $6, $7)`,
                row,
              );
              return ops.insertHead(anchor);
            },
          };
          return runAsync(signHead('acme', signer, '2026-06-01T12:00:02.000Z'), raced);
        });
      } catch (e) {
        err = e;
      }
      refusal(err);
      const heads = await pg.store.anchors.list('acme');
      expect(heads.map((h) => [h.head.tree_size, h.head.root_hash, h.head.signed_at])).toEqual([
        [2, 'ab'.repeat(32), '2026-06-01T12:00:01.000Z'],
      ]);
    },
  );
});
