import { describe, expect, it } from 'vitest';
import { signHead } from '../../src/core/anchor.js';
import { runAsync, runSync } from '../../src/core/use-case.js';
import { Keyring } from '../../src/store/keyring.js';
import { anchorOpsIn } from '../../src/store/postgres/anchors.js';
import type { Store } from '../../src/store/ports.js';
import { anchorOps } from '../../src/store/sqlite/anchors.js';
import type { Fixture } from '../helpers/fixture.js';
import { expectConflict, inTenant, pgDb, raceStores } from '../helpers/guard-race.js';
import { beforeOp, thrown } from '../helpers/op-race.js';
import { pgAvailable } from '../helpers/postgres.js';
import { decide } from '../helpers/real-export.js';
import { registerBotReader } from '../helpers/registry.js';

/**
 * Anchoring inserts a head only where none is stored at its size, and must insert one row.
 * Another writer storing a head there between the read and the insert (which the single
 * writer and the tenant lock rule out today) fails the anchor with the coded conflict; the
 * other writer's head stands and nothing of this one is kept.
 */
const server = await pgAvailable();

async function journalOfTwo(f: Fixture<Store>): Promise<void> {
  await registerBotReader(f.store);
  const bot = await f.token('acme', 'bot');
  for (const step of ['s1', 's2']) expect(await decide(f as Fixture, bot, step)).toBe(200);
}

/** A head of size 2 as another writer would store it: a row of the anchors table, columns in order. */
async function racingHead(f: Fixture<Store>): Promise<unknown[]> {
  const key = await f.store.keys.active('acme');
  return ['acme', 2, 'ab'.repeat(32), '2026-06-01T12:00:01.000Z', 'c2lnbmF0dXJl', key!.keyId, 'ed25519'];
}

const refusal = (err: unknown) => expectConflict(err, 'the head of tenant acme at size 2');

describe('anchoring a head that another writer stored first', () => {
  const stores = raceStores();

  it('sqlite: fails with a coded conflict and rolls back', async () => {
    const sqlite = await stores.sqlite();
    await journalOfTwo(sqlite);
    const signer = await new Keyring(sqlite.dir, sqlite.store).signer('acme');
    const row = await racingHead(sqlite);
    // The single writer admits no second connection mid-transaction: the racer writes on this one.
    const raced = beforeOp(anchorOps(sqlite.store.db), 'insertHead', () =>
      sqlite.store.db
        .prepare(
          `INSERT INTO anchors (tenant_id, tree_size, root_hash, signed_at, signature, key_id, algorithm)
             VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(...row),
    );
    const sign = sqlite.store.db.transaction(() =>
      runSync(signHead('acme', signer, '2026-06-01T12:00:02.000Z'), raced),
    );
    refusal(await thrown(() => sign.immediate()));
    expect(await sqlite.store.anchors.list('acme')).toEqual([]);
  });

  it.skipIf('skip' in server)(
    'postgres: fails with a coded conflict; the other replica’s head stands',
    async () => {
      const pg = await stores.postgres();
      await journalOfTwo(pg);
      const signer = await new Keyring(pg.dir, pg.store).signer('acme');
      const row = await racingHead(pg);
      const db = pgDb(pg);
      const err = await thrown(() =>
        inTenant(pg, anchorOpsIn, (ops) =>
          runAsync(
            signHead('acme', signer, '2026-06-01T12:00:02.000Z'),
            // Another connection (a replica that skipped the lock) commits a head at this size first.
            beforeOp(ops, 'insertHead', () =>
              db.query(
                `INSERT INTO anchors (tenant_id, tree_size, root_hash, signed_at, signature, key_id, algorithm)
               VALUES ($1, $2, $3, $4, $5, $6, $7)`,
                row,
              ),
            ),
          ),
        ),
      );
      refusal(err);
      const heads = await pg.store.anchors.list('acme');
      expect(heads.map((h) => [h.head.tree_size, h.head.root_hash, h.head.signed_at])).toEqual([
        [2, 'ab'.repeat(32), '2026-06-01T12:00:01.000Z'],
      ]);
    },
  );
});
