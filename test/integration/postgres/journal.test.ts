import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import { decodeHex } from '../../../src/evidence/encoding.js';
import { consistencyProof, inclusionProof, leafHash } from '../../../src/evidence/merkle-tree.js';
import { sha256 } from '../../../src/evidence/node-crypto.js';
import { PgCommitQueue } from '../../../src/store/postgres/commit-queue.js';
import { PgDb } from '../../../src/store/postgres/database.js';
import { appendJournal } from '../../../src/store/postgres/journal.js';
import { PgJournalExports } from '../../../src/store/postgres/journal-export.js';
import { PgMerkleProofs } from '../../../src/store/postgres/merkle-nodes.js';
import { migrate } from '../../../src/store/postgres/migrate.js';
import { JournalWriter, type JournalAppend } from '../../../src/store/sqlite/journal.js';
import { openDatabase } from '../../../src/store/sqlite/database.js';
import { freshDatabase, pgAvailable } from '../../helpers/postgres.js';
import { tmpDir } from '../../helpers/tmp.js';

const server = await pgAvailable();

const at = (i: number) => new Date(Date.UTC(2026, 5, 1) + i).toISOString();

function record(tenantId: string, i: number): JournalAppend {
  return {
    tenantId,
    kind: 'decision',
    receiptId: `rcp_${tenantId}_${i}`,
    taskId: null,
    intentId: `int_${i}`,
    actorId: 'bot',
    capability: 'crm.read',
    tier: 1,
    allowed: i % 3 !== 0,
    grantId: '',
    amountMicros: BigInt(i) + 9_007_199_254_740_993n, // past 2^53: bigints survive both stores
    occurredAt: at(i),
    record: { intent_id: `int_${i}`, n: i, text: 'é\u2028' },
  };
}

interface Row {
  sequence: string;
  record: string;
  record_hash: string;
  leaf: string;
  chain_hash: string;
  amount_micros: string;
}

describe.skipIf('skip' in server)('the PostgreSQL journal, several writers at once', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let replicas: PgDb[];
  const tmp = tmpDir('svc-pg-journal-');

  beforeAll(async () => {
    fresh = await freshDatabase();
    // Separate pools stand for separate replicas: nothing is shared but the database.
    replicas = [new PgDb(fresh.url, { poolSize: 4 }), new PgDb(fresh.url, { poolSize: 4 })];
    await migrate(replicas[0]!);
    for (const t of ['acme', 'other'])
      await replicas[0]!.query('INSERT INTO tenants (id, created_at) VALUES ($1, $2)', [t, at(0)]);
  });

  afterAll(async () => {
    await Promise.all((replicas ?? []).map((db) => db.close()));
    await fresh?.drop();
    tmp.cleanup();
  });

  it('appends through two replicas interleave into one contiguous log, byte for byte what SQLite writes', async () => {
    const queues = replicas.map((db) => new PgCommitQueue(db));
    const n = 120;
    const results = await Promise.allSettled(
      Array.from({ length: n }, (_, k) =>
        queues[k % 2]!.submit('acme', async (tx) => {
          if (k % 17 === 5) {
            // a job that fails after writing: rolled back alone, the batch commits the rest
            await appendJournal(tx, record('acme', 10_000 + k), at(k));
            throw new SvcError('conflict', `job ${k} refuses`);
          }
          return appendJournal(tx, record('acme', k), at(k));
        }),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused.length).toBe(Array.from({ length: n }, (_, k) => k).filter((k) => k % 17 === 5).length);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(SvcError);
    const sequences = ok.map((r) => (r as PromiseFulfilledResult<{ sequence: number }>).value.sequence);
    expect([...sequences].sort((a, b) => a - b)).toEqual(ok.map((_, i) => i + 1));

    // The same records, in the order PostgreSQL sequenced them, appended to SQLite.
    const rows = await replicas[0]!.query<Row & { receipt_id: string }>(
      `SELECT sequence, receipt_id, record, record_hash, leaf, chain_hash, amount_micros, linked_at
       FROM journal WHERE tenant_id = 'acme' ORDER BY sequence`,
    );
    const sqlite = openDatabase(`${tmp.path}/parity.db`);
    try {
      sqlite.prepare('INSERT INTO tenants (id, created_at) VALUES (?, ?)').run('acme', at(0));
      const writer = new JournalWriter(sqlite);
      sqlite.transaction(() => {
        for (const r of rows) {
          const k = Number(r.receipt_id.split('_').pop());
          writer.append(record('acme', k), at(k));
        }
      })();
      const mirrored = sqlite
        .prepare(
          `SELECT sequence, record, record_hash, leaf, chain_hash, amount_micros FROM journal
           WHERE tenant_id = 'acme' ORDER BY sequence`,
        )
        .safeIntegers(true)
        .all() as Record<string, unknown>[];
      expect(
        mirrored.map((m) => ({ ...m, sequence: String(m.sequence), amount_micros: String(m.amount_micros) })),
      ).toEqual(
        rows.map(({ sequence, record, record_hash, leaf, chain_hash, amount_micros }) => ({
          sequence,
          record,
          record_hash,
          leaf,
          chain_hash,
          amount_micros,
        })),
      );
    } finally {
      sqlite.close();
    }
  });

  it('proofs from the stored subtrees equal the RFC 6962 proofs over every leaf', async () => {
    const db = replicas[1]!;
    const leaves = (
      await db.query<{ leaf: string }>("SELECT leaf FROM journal WHERE tenant_id = 'acme' ORDER BY sequence")
    ).map((r) => decodeHex(r.leaf)!);
    const proofs = new PgMerkleProofs(db);
    for (const size of [1, 2, 7, 64, leaves.length]) {
      for (const seq of [1, Math.ceil(size / 2), size]) {
        expect(await proofs.inclusion('acme', seq, size)).toEqual(
          inclusionProof(leaves.slice(0, size), seq - 1, sha256),
        );
      }
      if (size > 1)
        expect(await proofs.consistency('acme', 1, size)).toEqual(
          consistencyProof(leaves.slice(0, size), 1, sha256),
        );
    }
    expect(leafHash(leaves[0]!, sha256)).toHaveLength(32);
    await expect(proofs.inclusion('acme', 1, leaves.length + 1)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('an export snapshot does not move while a replica appends, and streams in pages', async () => {
    const exports = new PgJournalExports(replicas[0]!);
    const snapshot = await exports.snapshot('acme');
    try {
      const size = snapshot.size;
      expect(size).toBeGreaterThan(100);
      await new PgCommitQueue(replicas[1]!).submit('acme', (tx) =>
        appendJournal(tx, record('acme', 50_000), at(9)),
      );
      expect(await snapshot.anchorCount(size)).toBe(0);
      expect(await snapshot.redactedPast(size)).toBe(false);
      const seen: number[] = [];
      for await (const page of snapshot.items(size + 1, {}))
        for (const item of page) if (item.type === 'entry') seen.push(item.sequence);
      // the append after the snapshot is not in it, even when asked past its size
      expect(seen).toEqual(Array.from({ length: size }, (_, i) => i + 1));
    } finally {
      await snapshot.close();
    }
  });

  it('tenants do not wait on each other, and a batch over several tenants locks them in order', async () => {
    const queue = new PgCommitQueue(replicas[0]!);
    const out = await Promise.all(
      Array.from({ length: 20 }, (_, k) =>
        queue.submit(k % 2 ? 'other' : 'acme', (tx) =>
          appendJournal(tx, record(k % 2 ? 'other' : 'acme', 60_000 + k), at(k)),
        ),
      ),
    );
    const other = out.filter((_, k) => k % 2).map((a) => a.sequence);
    expect(other).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
  });
});
