import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { admits } from '../../../src/core/constraints.js';
import type { DecisionRequest } from '../../../src/core/decision/request.js';
import { newId } from '../../../src/core/ids.js';
import { PolicyCache } from '../../../src/daemon/policy-cache.js';
import { chainNext } from '../../../src/evidence/chain.js';
import { decodeHex, encodeHex } from '../../../src/evidence/encoding.js';
import { emptyLogState } from '../../../src/evidence/journal-entry.js';
import { appendToFrontier } from '../../../src/evidence/merkle-frontier.js';
import type { CompletedSubtree } from '../../../src/evidence/merkle-subtrees.js';
import { sha256 } from '../../../src/evidence/node-crypto.js';
import type { Sealed } from '../../../src/store/decision-ports.js';
import { PgCommitQueue } from '../../../src/store/postgres/commit-queue.js';
import { PgDb } from '../../../src/store/postgres/database.js';
import { DecisionBatch } from '../../../src/store/postgres/decision-batch.js';
import type { StateRequest } from '../../../src/store/postgres/decision-state.js';
import { PgDecisions } from '../../../src/store/postgres/decisions.js';
import { appendJournal } from '../../../src/store/postgres/journal.js';
import { migrate } from '../../../src/store/postgres/migrate.js';
import { replicaOwner } from '../../../src/store/postgres/replica.js';
import { AT, bot, request, seed } from '../../helpers/pg-seed.js';
import { freshDatabase, pgAvailable } from '../../helpers/postgres.js';

const server = await pgAvailable();

type SealedReply = Extract<Sealed, { kind: 'sealed' }>;
const sealedOnly = (answers: Sealed[]) => answers.filter((s): s is SealedReply => s.kind === 'sealed');

/**
 * The decisions of one group-commit batch share one state read and one write
 * (decision-batch.ts). Every case submits its decisions in one turn of the event loop, so
 * they meet in one batch on one replica, and asserts that no batch had to run again alone:
 * a batch runs again only when its shared writes failed their guards, which is what a state
 * overlay that missed a decision before it would cause. The journal is then checked whole:
 * its chain, its Merkle subtrees and its stored state recomputed from its leaves.
 */
describe.skipIf('skip' in server)('PostgreSQL decisions sharing a batch', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let db: PgDb;
  let queue: PgCommitQueue;
  let decisions: PgDecisions;
  const rules = { policy: new PolicyCache(), constraints: admits };

  beforeAll(async () => {
    fresh = await freshDatabase();
    db = new PgDb(fresh.url, { poolSize: 4 });
    await migrate(db);
    await seed(db);
    await db.query(
      `INSERT INTO tasks (tenant_id, id, sponsor_id, status, root_id, budget_micros, created_at, constraints)
       VALUES ('acme', 'capped', 'alice', 'active', 'capped', 1000000000, $1, '{"max_actions":7}')`,
      [AT],
    );
    await db.query(`INSERT INTO task_actors (tenant_id, task_id, actor_id) VALUES ('acme', 'capped', 'bot')`);
  });

  beforeEach(() => {
    queue = new PgCommitQueue(db);
    decisions = new PgDecisions(queue, () => new Date(), replicaOwner('batch-test'));
  });

  afterAll(async () => {
    await db?.close();
    await fresh?.drop();
  });

  const decideAll = (reqs: DecisionRequest[]) =>
    Promise.all(reqs.map((r) => decisions.decide(r, bot, 'new', rules)));

  /** The tenant's journal recomputed from its leaves: chain, subtrees and stored state all agree. */
  async function expectWholeJournal(): Promise<number> {
    const rows = await db.query<{ sequence: string; leaf: string; chain_hash: string }>(
      "SELECT sequence, leaf, chain_hash FROM journal WHERE tenant_id = 'acme' ORDER BY sequence",
    );
    let state = emptyLogState('acme', sha256);
    let chain = decodeHex(state.chainHash)!;
    let frontier = state.frontier;
    const subtrees: CompletedSubtree[] = [];
    rows.forEach((r, i) => {
      expect(Number(r.sequence)).toBe(i + 1);
      const leaf = decodeHex(r.leaf)!;
      chain = chainNext(chain, leaf, sha256);
      expect(r.chain_hash).toBe(encodeHex(chain));
      frontier = appendToFrontier(frontier, leaf, sha256, subtrees);
    });
    state = { size: rows.length, chainHash: encodeHex(chain), frontier };
    const [stored] = await db.query<{ size: string; chain_hash: string; frontier: string }>(
      "SELECT size, chain_hash, frontier FROM journal_state WHERE tenant_id = 'acme'",
    );
    expect({
      size: Number(stored!.size),
      chainHash: stored!.chain_hash,
      frontier: JSON.parse(stored!.frontier),
    }).toEqual(state);
    const nodes = await db.query<{ at_size: string; level: string; hash: Buffer }>(
      "SELECT at_size, level, hash FROM merkle_nodes WHERE tenant_id = 'acme'",
    );
    // keyed by the size whose append completed each subtree: (index + 1) * 2^level
    const key = (at: number, l: number) => `${at}/${l}`;
    expect(new Map(nodes.map((n) => [key(Number(n.at_size), Number(n.level)), encodeHex(n.hash)]))).toEqual(
      new Map(subtrees.map((n) => [key((n.index + 1) * 2 ** n.level, n.level), encodeHex(n.hash)])),
    );
    return rows.length;
  }

  it('a budget is spent exactly by the decisions of one batch, each seeing the reservations before it', async () => {
    const answers = await decideAll(
      Array.from({ length: 210 }, (_, k) => request('crm.paid', 'small', `b-${k}`)),
    );
    const sealed = sealedOnly(answers);
    expect(sealed).toHaveLength(210);
    // 1.5 USD at 0.01 each: the first 150 in the batch's order fit, the rest do not
    expect(sealed.slice(0, 150).every((s) => s.outcome === 'allowed')).toBe(true);
    expect(sealed.slice(150).every((s) => s.outcome === 'refused' && s.code === 'budget_exceeded')).toBe(
      true,
    );
    const [task] = await db.query<{ reserved: string }>(
      "SELECT reserved_micros AS reserved FROM tasks WHERE tenant_id = 'acme' AND id = 'small'",
    );
    expect(task!.reserved).toBe('1500000');
    expect(queue.stats).toEqual({ batches: 1, reruns: 0 });
    // every reply's receipt is the journal's row at its sequence
    const rows = await db.query<{ sequence: string; receipt_id: string }>(
      "SELECT sequence, receipt_id FROM journal WHERE tenant_id = 'acme'",
    );
    const bySequence = new Map(rows.map((r) => [Number(r.sequence), r.receipt_id]));
    for (const s of sealed) expect(bySequence.get(s.receipt.sequence)).toBe(s.receipt.receiptId);
    await expectWholeJournal();
  });

  it('one effect key asked many times in one batch is allowed once; the others see its claim', async () => {
    const answers = await decideAll(
      Array.from({ length: 20 }, () => request('crm.notes', 'keys', 'same-key')),
    );
    expect(sealedOnly(answers).filter((s) => s.outcome === 'allowed')).toHaveLength(1);
    expect(answers.filter((s) => s.kind === 'conflict' && s.code === 'duplicate_effect')).toHaveLength(19);
    expect(queue.stats.reruns).toBe(0);
    const [keys] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM effect_keys WHERE tenant_id = 'acme' AND step = 'same-key'",
    );
    expect(keys!.n).toBe(1);
    await expectWholeJournal();
  });

  it('execution constraints count the admissions made earlier in the same batch', async () => {
    const answers = sealedOnly(
      await decideAll(Array.from({ length: 12 }, (_, k) => request('crm.notes', 'capped', `c-${k}`))),
    );
    expect(answers.filter((s) => s.outcome === 'allowed')).toHaveLength(7);
    expect(answers.slice(7).every((s) => s.outcome === 'refused')).toBe(true);
    const [admitted] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM admissions WHERE tenant_id = 'acme' AND root_id = 'capped'",
    );
    expect(admitted!.n).toBe(7);
    expect(queue.stats.reruns).toBe(0);
    await expectWholeJournal();
  });

  it('a decision the batch cannot follow (an approval opened) ends the sharing; the decisions after it read alone', async () => {
    const reqs = Array.from({ length: 30 }, (_, k) =>
      k % 10 === 5 ? request('payments.send', 'keys', `pay-${k}`, 5) : request('crm.notes', 'keys', `n-${k}`),
    );
    // the same key again after the approval: it must see the deferral written before it
    reqs.push(request('payments.send', 'keys', 'pay-5', 5));
    const answers = await decideAll(reqs);
    const sealed = sealedOnly(answers);
    expect(sealed.filter((s) => s.outcome === 'deferred')).toHaveLength(3);
    expect(sealed.filter((s) => s.outcome === 'allowed')).toHaveLength(27);
    // the same key again finds the deferral written before it, and names its intent
    const deferral = answers[5]!;
    expect(answers[30]).toMatchObject({
      kind: 'conflict',
      code: 'deferral_pending',
      intentId: deferral.kind === 'sealed' ? deferral.intentId : 'none',
    });
    expect(queue.stats.reruns).toBe(0);
    await expectWholeJournal();
  });

  it('a job of another kind in the batch finds every decision before it written, and the later ones follow its append', async () => {
    let sizeSeen = -1;
    const before = Number(
      (await db.query<{ size: string }>("SELECT size FROM journal_state WHERE tenant_id = 'acme'"))[0]!.size,
    );
    const first = decideAll(Array.from({ length: 10 }, (_, k) => request('crm.notes', 'keys', `o-${k}`)));
    const other = queue.submit('acme', async (tx) => {
      sizeSeen = Number(
        (await tx.query<{ size: string }>("SELECT size FROM journal_state WHERE tenant_id = 'acme'"))[0]!
          .size,
      );
      return appendJournal(
        tx,
        {
          tenantId: 'acme',
          kind: 'decision',
          receiptId: newId('rcp'),
          taskId: 'keys',
          intentId: newId('int'),
          actorId: 'bot',
          capability: 'crm.notes',
          tier: 0,
          allowed: false,
          grantId: '',
          amountMicros: 0n,
          occurredAt: new Date().toISOString(),
          record: { note: 'another kind of job' },
        } as Parameters<typeof appendJournal>[1],
        new Date().toISOString(),
      );
    });
    const second = decideAll(Array.from({ length: 10 }, (_, k) => request('crm.notes', 'keys', `p-${k}`)));
    const [a, appended, b] = await Promise.all([first, other, second]);
    expect(sizeSeen).toBe(before + 10);
    expect(appended.sequence).toBe(before + 11);
    expect(sealedOnly([...a, ...b]).every((s) => s.outcome === 'allowed')).toBe(true);
    expect(sealedOnly(b).map((s) => s.receipt.sequence)).toEqual(
      Array.from({ length: 10 }, (_, k) => before + 12 + k),
    );
    expect(queue.stats).toEqual({ batches: 1, reruns: 0 });
    await expectWholeJournal();
  });

  it('shared writes that fail roll the batch back and it runs again with every decision alone', async () => {
    let failed = false;
    queue.share((tx, tags) => {
      const batch = new DecisionBatch(tx, tags as (StateRequest | undefined)[]);
      const finish = batch.finish.bind(batch);
      batch.finish = async () => {
        if (!failed) {
          failed = true;
          // what a failed guard does: the statement fails, and with it the transaction
          await tx.query("SELECT 1 / 0 WHERE 'fail' = $1", ['fail']);
        }
        return finish();
      };
      return batch;
    });
    const before = await expectWholeJournal();
    const answers = sealedOnly(
      await decideAll(Array.from({ length: 15 }, (_, k) => request('crm.notes', 'keys', `r-${k}`))),
    );
    expect(answers.every((s) => s.outcome === 'allowed')).toBe(true);
    expect(queue.stats).toEqual({ batches: 1, reruns: 1 });
    expect(answers.map((s) => s.receipt.sequence)).toEqual(
      Array.from({ length: 15 }, (_, k) => before + 1 + k),
    );
    expect(await expectWholeJournal()).toBe(before + 15);
  });
});
