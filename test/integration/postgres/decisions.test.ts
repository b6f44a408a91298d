import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admits } from '../../../src/core/constraints.js';
import type { DecisionRequest } from '../../../src/core/decision/request.js';
import { PolicyCache } from '../../../src/daemon/policy-cache.js';
import { PgCommitQueue } from '../../../src/store/postgres/commit-queue.js';
import { PgDb } from '../../../src/store/postgres/database.js';
import { PgDecisions } from '../../../src/store/postgres/decisions.js';
import { migrate } from '../../../src/store/postgres/migrate.js';
import { replicaOwner } from '../../../src/store/postgres/replica.js';
import type { Sealed } from '../../../src/store/decision-ports.js';
import { bot, request, seed } from '../../helpers/pg-seed.js';
import { freshDatabase, pgAvailable } from '../../helpers/postgres.js';

const server = await pgAvailable();

describe.skipIf('skip' in server)('PostgreSQL decisions from several replicas at once', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let dbs: PgDb[];
  let replicas: PgDecisions[];
  const rules = { policy: new PolicyCache(), constraints: admits };

  beforeAll(async () => {
    fresh = await freshDatabase();
    dbs = [0, 1, 2].map(() => new PgDb(fresh.url, { poolSize: 4 }));
    await migrate(dbs[0]!);
    await seed(dbs[0]!);
    replicas = dbs.map(
      (db, i) => new PgDecisions(new PgCommitQueue(db), () => new Date(), replicaOwner(`replica-${i}`)),
    );
  });

  afterAll(async () => {
    await Promise.all((dbs ?? []).map((db) => db.close()));
    await fresh?.drop();
  });

  const decide = (i: number, req: DecisionRequest, mode: 'new' | 'resume' = 'new') =>
    replicas[i % replicas.length]!.decide(req, bot, mode, rules);

  it('one effect key asked through every replica at once is allowed exactly once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, k) =>
        [0, 1, 2].map((i) => decide(i, request('crm.notes', 'keys', `k-${k}`))),
      ).flat(),
    );
    for (let k = 0; k < 40; k++) {
      const three = answers.slice(k * 3, k * 3 + 3);
      expect(three.filter((s) => s.kind === 'sealed' && s.outcome === 'allowed')).toHaveLength(1);
      expect(three.filter((s) => s.kind === 'conflict' && s.code === 'duplicate_effect')).toHaveLength(2);
    }
  });

  it('a budget spread over the replicas is never overspent, and every allow is reserved', async () => {
    const answers = await Promise.all(
      Array.from({ length: 210 }, (_, k) => decide(k, request('crm.paid', 'small', `b-${k}`))),
    );
    const sealed = answers.filter((s): s is Extract<Sealed, { kind: 'sealed' }> => s.kind === 'sealed');
    expect(sealed).toHaveLength(210);
    expect(sealed.filter((s) => s.outcome === 'allowed')).toHaveLength(150);
    expect(sealed.filter((s) => s.outcome === 'refused').every((s) => s.code === 'budget_exceeded')).toBe(
      true,
    );
    const [task] = await dbs[0]!.query<{ reserved: string }>(
      "SELECT reserved_micros AS reserved FROM tasks WHERE tenant_id = 'acme' AND id = 'small'",
    );
    expect(task!.reserved).toBe('1500000');
    const sequences = (
      await dbs[1]!.query<{ sequence: string }>("SELECT sequence FROM journal WHERE tenant_id = 'acme'")
    )
      .map((r) => Number(r.sequence))
      .sort((a, b) => a - b);
    expect(sequences).toEqual(sequences.map((_, i) => i + 1));
    // each reply's receipt is the journal's row at its sequence
    for (const s of sealed.slice(0, 20)) {
      const [row] = await dbs[2]!.query<{ receipt_id: string }>(
        "SELECT receipt_id FROM journal WHERE tenant_id = 'acme' AND sequence = $1",
        [s.receipt.sequence],
      );
      expect(row!.receipt_id).toBe(s.receipt.receiptId);
    }
  });

  it('an approval is consumed once: resumes racing on every replica allow one', async () => {
    const req = request('payments.send', 'keys', 'pay-1', 2);
    const deferred = await decide(0, req);
    expect(deferred).toMatchObject({ kind: 'sealed', outcome: 'deferred', approval: { status: 'pending' } });
    const approvalId = (deferred as Extract<Sealed, { kind: 'sealed' }>).approval!.approvalId;
    // Standing: resumes before the approval add nothing to the journal.
    const before = await dbs[0]!.query<{ size: string }>(
      "SELECT size FROM journal_state WHERE tenant_id = 'acme'",
    );
    const standing = await Promise.all([0, 1, 2].map((i) => decide(i, req, 'resume')));
    for (const s of standing) expect(s).toMatchObject({ kind: 'sealed', outcome: 'deferred' });
    expect(await dbs[0]!.query("SELECT size FROM journal_state WHERE tenant_id = 'acme'")).toEqual(before);
    await dbs[0]!.query(
      "UPDATE approvals SET status = 'approved', decided_by = 'alice', decided_at = $2 WHERE tenant_id = 'acme' AND id = $1",
      [approvalId, new Date().toISOString()],
    );
    const resumed = await Promise.all([0, 1, 2, 0, 1, 2].map((i) => decide(i, req, 'resume')));
    const allowed = resumed.filter((s) => s.kind === 'sealed' && s.outcome === 'allowed');
    expect(allowed).toHaveLength(1);
    expect(allowed[0]).toMatchObject({ approval: { approvalId, status: 'consumed' } });
    expect(resumed.filter((s) => s.kind === 'no_deferral')).toHaveLength(5);
    const [a] = await dbs[0]!.query<{ status: string }>('SELECT status FROM approvals WHERE id = $1', [
      approvalId,
    ]);
    expect(a!.status).toBe('consumed');
  });
});
