import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeBase64, decodeHex, encodeHex } from '../../src/evidence/encoding.js';
import { verifyConsistency, verifyInclusion } from '../../src/evidence/merkle-proof.js';
import { MerkleFrontier } from '../../src/evidence/merkle-frontier.js';
import { consistencyProof, inclusionProof, leafHash } from '../../src/evidence/merkle-tree.js';
import { nodeCrypto, sha256 } from '../../src/evidence/node-crypto.js';
import { verifyReceipt } from '../../src/evidence/verify/receipt-check.js';
import { Keyring } from '../../src/store/keyring.js';
import { JournalWriter } from '../../src/store/sqlite/journal.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { decide } from '../helpers/real-export.js';
import { capability, register } from '../helpers/registry.js';
import { as } from '../helpers/seed.js';

const ENTRIES = 1000;

/** A real journal of `count` entries (after the `from` already there), appended as decisions append them. */
function appendEntries(store: SqliteStore, count: number, from = 0): void {
  const journal = new JournalWriter(store.db);
  store.db.transaction(() => {
    for (let i = from + 1; i <= from + count; i++) {
      const at = new Date(Date.UTC(2026, 5, 1) + i).toISOString();
      journal.append(
        {
          tenantId: 'acme',
          kind: 'decision',
          receiptId: `rcp_${i}`,
          taskId: null,
          intentId: `int_${i}`,
          actorId: 'bot',
          capability: 'crm.read',
          tier: 1,
          allowed: true,
          grantId: '',
          amountMicros: BigInt(i),
          occurredAt: at,
          record: { intent_id: `int_${i}`, n: i },
        },
        at,
      );
    }
  })();
}

const leavesOf = (store: SqliteStore): Uint8Array[] =>
  (
    store.db
      .prepare("SELECT leaf FROM journal WHERE tenant_id = 'acme' ORDER BY sequence")
      .pluck()
      .all() as string[]
  ).map((h) => decodeHex(h)!);

describe('proofs from the stored subtrees of a real SQLite journal', () => {
  let f: Fixture;
  let leaves: Uint8Array[];
  let roots: Uint8Array[];

  beforeEach(async () => {
    f = await fixture();
    appendEntries(f.store, ENTRIES);
    leaves = leavesOf(f.store);
    const frontier = new MerkleFrontier(sha256);
    roots = [frontier.root()];
    for (const leaf of leaves) {
      frontier.append(leaf);
      roots.push(frontier.root());
    }
  });
  afterEach(async () => f.close());

  it('keeps one row per completed subtree, written with the appends', () => {
    const rows = f.store.db
      .prepare("SELECT count(*) FROM merkle_nodes WHERE tenant_id = 'acme'")
      .pluck()
      .get();
    expect(rows).toBe(ENTRIES - 6); // n minus the set bits of 1000
  });

  it('proves inclusion and consistency at every size from 1 to 1,000, as the O(n) definition does', async () => {
    const hex = (p: Uint8Array[]) => p.map(encodeHex);
    for (let size = 1; size <= ENTRIES; size++) {
      // Three indices per size through SQLite: the first, the last and one between.
      for (const i of new Set([0, size - 1, (size * 7919) % size])) {
        const path = await f.store.proofs.inclusion('acme', i + 1, size);
        expect(verifyInclusion(leafHash(leaves[i]!, sha256), i, size, path, roots[size]!, sha256)).toBe(true);
        const consistency = await f.store.proofs.consistency('acme', i + 1, size);
        expect(verifyConsistency(i + 1, size, roots[i + 1]!, roots[size]!, consistency, sha256)).toBe(true);
      }
    }
    // Exactly the naive proofs (which rehash every leaf each call), at a spread of sizes.
    for (const size of [1, 2, 3, 7, 8, 9, 255, 256, 257, 511, 512, 513, 999, 1000]) {
      const prefix = leaves.slice(0, size);
      for (const i of [0, Math.floor(size / 3), size - 1]) {
        expect(hex(await f.store.proofs.inclusion('acme', i + 1, size))).toEqual(
          hex(inclusionProof(prefix, i, sha256)),
        );
        expect(hex(await f.store.proofs.consistency('acme', i + 1, size))).toEqual(
          hex(consistencyProof(prefix, i + 1, sha256)),
        );
      }
    }
  });

  it('refuses a proof beyond the log', async () => {
    await expect(f.store.proofs.inclusion('acme', 1, ENTRIES + 1)).rejects.toMatchObject({
      kind: 'not_found',
    });
    await expect(f.store.proofs.inclusion('other', 1, 1)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('fills in the subtrees of a journal older than the table, once, at the next open', async () => {
    const before = f.store.db
      .prepare('SELECT at_size, level, hex(hash) FROM merkle_nodes ORDER BY at_size, level')
      .raw()
      .all();
    f.store.db.exec(
      "DELETE FROM merkle_nodes; INSERT INTO merkle_backfill (tenant_id, size) VALUES ('acme', 1000)",
    );
    await f.store.close();
    const reopened = SqliteStore.open(f.dir.database);
    try {
      const after = reopened.db
        .prepare('SELECT at_size, level, hex(hash) FROM merkle_nodes ORDER BY at_size, level')
        .raw()
        .all();
      expect(after).toEqual(before);
      expect(reopened.db.prepare('SELECT count(*) FROM merkle_backfill').pluck().get()).toBe(0);
      const path = await reopened.proofs.inclusion('acme', 500, 1000);
      expect(verifyInclusion(leafHash(leaves[499]!, sha256), 499, 1000, path, roots[1000]!, sha256)).toBe(
        true,
      );
    } finally {
      await reopened.close();
      f.store = SqliteStore.open(f.dir.database); // for afterEach
    }
  });
  it('carries over the subtrees of a data dir that keyed them by level and index', async () => {
    const before = f.store.db
      .prepare('SELECT at_size, level, hex(hash) FROM merkle_nodes ORDER BY at_size, level')
      .raw()
      .all();
    const rekeying = MIGRATIONS.findIndex((m) => m.includes('merkle_nodes_by_size'));
    expect(rekeying).toBeGreaterThan(0);
    // the table as migration 8 made it (its own text), holding the same subtrees
    const byLevel = MIGRATIONS.map((m) => /CREATE TABLE merkle_nodes \([^;]*;/.exec(m)?.[0]).find(Boolean);
    expect(byLevel).toContain('PRIMARY KEY (tenant_id, level, idx)');
    f.store.db.exec(`
      ${byLevel!.replace('merkle_nodes', 'by_level')}
      INSERT INTO by_level SELECT tenant_id, level, at_size / (1 << level) - 1, hash FROM merkle_nodes;
      DROP TABLE merkle_nodes;
      ALTER TABLE by_level RENAME TO merkle_nodes;
      PRAGMA user_version = ${rekeying};
    `);
    await f.store.close();
    f.store = SqliteStore.open(f.dir.database);
    expect(
      f.store.db
        .prepare('SELECT at_size, level, hex(hash) FROM merkle_nodes ORDER BY at_size, level')
        .raw()
        .all(),
    ).toEqual(before);
    for (const size of [1, 2, 3, 8, 9, 513, 1000]) {
      for (const i of [0, Math.floor(size / 2), size - 1]) {
        const path = await f.store.proofs.inclusion('acme', i + 1, size);
        expect(verifyInclusion(leafHash(leaves[i]!, sha256), i, size, path, roots[size]!, sha256)).toBe(true);
      }
    }
    // and the store goes on appending after them
    appendEntries(f.store, 24, ENTRIES);
    const path = await f.store.proofs.consistency('acme', ENTRIES, ENTRIES + 24);
    const frontier = new MerkleFrontier(sha256);
    for (const leaf of leavesOf(f.store)) frontier.append(leaf);
    expect(verifyConsistency(ENTRIES, ENTRIES + 24, roots[ENTRIES]!, frontier.root(), path, sha256)).toBe(
      true,
    );
  });

  it('refuses a subtree row whose size is not where its level completes', () => {
    const hash = Buffer.alloc(32);
    const insert = f.store.db.prepare(
      "INSERT INTO merkle_nodes (tenant_id, at_size, level, hash) VALUES ('z', ?, ?, ?)",
    );
    expect(() => insert.run(6, 2, hash)).toThrow(/CHECK constraint/);
    expect(() => insert.run(8, 0, hash)).toThrow(/CHECK constraint/);
    insert.run(8, 2, hash);
  });
});

describe('GET /v1/receipts/{id}?proof=true', () => {
  let f: Fixture;
  let bot: string;
  let logKey: Uint8Array;

  beforeEach(async () => {
    f = await fixture();
    bot = await f.token('acme', 'bot');
    await register(f.store, 'acme', {
      caps: [capability('acme', 'crm.read')],
      grants: [['bot', 'crm.read']],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n, actors: ['bot'] }],
    });
    logKey = decodeBase64((await f.store.keys.active('acme'))!.publicKey)!;
  });
  afterEach(async () => f.close());

  const receipts = async () =>
    (await as(f, f.adminToken, '/v1/receipts?limit=200')).body.items as { receipt_id: string }[];
  const sign = async () =>
    f.store.anchors.signCurrent(
      'acme',
      await new Keyring(f.dir, f.store).signer('acme'),
      f.now.value.toISOString(),
    );

  it('is null until an anchor covers the entry, then carries a proof svc verify receipt accepts', async () => {
    for (let i = 0; i < 5; i++) expect(await decide(f, bot, `s${i}`)).toBe(200);
    const [first] = await receipts();
    const before = await as(f, bot, `/v1/receipts/${first!.receipt_id}?proof=true`);
    expect(before.status).toBe(200);
    expect(before.body.proof).toBeNull();

    await sign();
    for (let i = 5; i < 8; i++) expect(await decide(f, bot, `s${i}`)).toBe(200);
    const all = await receipts();
    const r = await as(f, bot, `/v1/receipts/${all[2]!.receipt_id}?proof=true`);
    expect(r.status).toBe(200);
    expect(r.body.proof).toMatchObject({
      leaf_index: 2,
      tree_size: 5,
      anchor: { type: 'anchor', head: { tree_size: 5 } },
    });
    expect(r.body.proof.entry).toMatchObject({
      type: 'entry',
      sequence: 3,
      leaf: r.body.leaf,
      linked_at: r.body.linked_at,
    });
    const report = await verifyReceipt(r.body, { publicKeys: [logKey] }, nodeCrypto);
    expect(report.findings).toEqual([]);
    expect(report).toMatchObject({ result: 'pass', sequence: 3, tree_size: 5, timestamp: 'absent' });

    // An entry after the latest anchor has no proof yet.
    expect((await as(f, bot, `/v1/receipts/${all[6]!.receipt_id}?proof=true`)).body.proof).toBeNull();
    // Without the flag the receipt is unchanged, and a bad flag value is named.
    expect((await as(f, bot, `/v1/receipts/${all[2]!.receipt_id}`)).body.proof).toBeUndefined();
    const bad = await as(f, bot, `/v1/receipts/${all[2]!.receipt_id}?proof=yes`);
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('proof');
  });

  it('fails offline when a published field, the path or the key is not what was signed', async () => {
    for (let i = 0; i < 4; i++) expect(await decide(f, bot, `s${i}`)).toBe(200);
    await sign();
    const [, second] = await receipts();
    const { body } = await as(f, bot, `/v1/receipts/${second!.receipt_id}?proof=true`);
    const codes = async (doc: unknown, key = logKey) =>
      (await verifyReceipt(doc, { publicKeys: [key] }, nodeCrypto)).findings.map((x) => x.code).sort();

    const amount = structuredClone(body);
    amount.amount_usd = 999;
    amount.proof.entry.amount_usd = 999;
    // The leaf is recomputed from what is published, so the path no longer leads to the root either.
    expect(await codes(amount)).toEqual(['inclusion_invalid', 'leaf_mismatch']);
    const receiptOnly = structuredClone(body);
    receiptOnly.actor_id = 'someone-else';
    expect(await codes(receiptOnly)).toEqual(['receipt_entry_mismatch']);
    const path = structuredClone(body);
    path.proof.audit_path[0] = '00'.repeat(32);
    expect(await codes(path)).toEqual(['inclusion_invalid']);
    const index = structuredClone(body);
    index.proof.leaf_index = 0;
    expect(await codes(index)).toEqual(['inclusion_invalid', 'proof_malformed']);
    const otherKey = decodeBase64((await f.store.keys.active('other'))!.publicKey)!;
    expect(await codes(body, otherKey)).toEqual(['key_id_mismatch', 'signature_invalid']);
    expect(await codes({ ...body, proof: null })).toEqual(['proof_missing']);
  });
});
