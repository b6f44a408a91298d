import { generateKeyPairSync, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admits } from '../../../src/core/constraints.js';
import { SvcError } from '../../../src/core/errors.js';
import { PolicyCache } from '../../../src/daemon/policy-cache.js';
import type { Sealed } from '../../../src/store/decision-ports.js';
import { PgAnchors } from '../../../src/store/postgres/anchors.js';
import { PgApprovals } from '../../../src/store/postgres/approvals.js';
import { PgCommitQueue } from '../../../src/store/postgres/commit-queue.js';
import { PgDb } from '../../../src/store/postgres/database.js';
import { PgDecisions } from '../../../src/store/postgres/decisions.js';
import { PgEffects } from '../../../src/store/postgres/effects.js';
import { PgExecutions } from '../../../src/store/postgres/executions.js';
import { PgJournalExports } from '../../../src/store/postgres/journal-export.js';
import { migrate } from '../../../src/store/postgres/migrate.js';
import { PgRedactions } from '../../../src/store/postgres/redactions.js';
import { replicaOwner, ReplicaClaim } from '../../../src/store/postgres/replica.js';
import { AT, bot, request, seed } from '../../helpers/pg-seed.js';
import { freshDatabase, pgAvailable } from '../../helpers/postgres.js';

const server = await pgAvailable();

type SealedDecision = Extract<Sealed, { kind: 'sealed' }>;

/** Three pools on one database stand for three replicas: they share nothing but PostgreSQL. */
describe.skipIf('skip' in server)('journaled writes from several PostgreSQL replicas at once', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let dbs: PgDb[];
  let decisions: PgDecisions[];
  const rules = { policy: new PolicyCache(), constraints: admits };
  const keys = generateKeyPairSync('ed25519');
  const signer = { keyId: 'k1', sign: (m: Uint8Array) => new Uint8Array(sign(null, m, keys.privateKey)) };
  const clock = () => new Date();

  beforeAll(async () => {
    fresh = await freshDatabase();
    dbs = [0, 1, 2].map(() => new PgDb(fresh.url, { poolSize: 4 }));
    await migrate(dbs[0]!);
    await seed(dbs[0]!);
    await dbs[0]!.query(`UPDATE actors SET roles = '["approver"]' WHERE tenant_id = 'acme' AND id = 'alice'`);
    const raw = keys.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
    await dbs[0]!.query(
      `INSERT INTO signing_keys (tenant_id, key_id, public_key, algorithm, status, created_at)
       VALUES ('acme', 'k1', $1, 'ed25519', 'active', $2)`,
      [raw, AT],
    );
    decisions = dbs.map(
      (db, i) => new PgDecisions(new PgCommitQueue(db), clock, replicaOwner(`replica-${i}`)),
    );
  });

  afterAll(async () => {
    await Promise.all((dbs ?? []).map((db) => db.close()));
    await fresh?.drop();
  });

  const allowed = async (step: string): Promise<SealedDecision> => {
    const s = await decisions[0]!.decide(request('crm.notes', 'keys', step), bot, 'new', rules);
    expect(s).toMatchObject({ kind: 'sealed', outcome: 'allowed' });
    return s as SealedDecision;
  };

  it('replicas signing at once store one head per size, and agree on it', async () => {
    await allowed('anchor-1');
    const signedAt = new Date().toISOString();
    const heads = await Promise.all(dbs.map((db) => new PgAnchors(db).signCurrent('acme', signer, signedAt)));
    expect(heads.filter((h) => h.created)).toHaveLength(1);
    expect(new Set(heads.map((h) => h.anchor.head.signature)).size).toBe(1);
    const stored = await new PgAnchors(dbs[2]!).list('acme');
    expect(stored).toHaveLength(1);
    await new PgAnchors(dbs[1]!).recordTimestamp('acme', stored[0]!.head.tree_size, {
      authority: 'noop',
      digest: 'a'.repeat(64),
      time: signedAt,
      noop: true,
    });
    await expect(
      new PgAnchors(dbs[2]!).recordTimestamp('acme', stored[0]!.head.tree_size, {
        authority: 'noop',
        digest: 'a'.repeat(64),
        time: signedAt,
        noop: true,
      }),
    ).rejects.toMatchObject({ kind: 'already_exists' });
    expect((await new PgAnchors(dbs[0]!).latest('acme'))?.timestamp).toMatchObject({ noop: true });
    const [backlog] = await new PgAnchors(dbs[0]!).backlog();
    expect(backlog).toMatchObject({ tenantId: 'acme', anchoredSize: stored[0]!.head.tree_size });
  });

  it('an approval is decided once whichever replicas the approvers reach', async () => {
    const deferred = (await decisions[1]!.decide(
      request('payments.send', 'keys', 'pay-approve', 3),
      bot,
      'new',
      rules,
    )) as SealedDecision;
    const approvalId = deferred.approval!.approvalId;
    const results = await Promise.allSettled(
      dbs.map((db, i) =>
        new PgApprovals(db).decide({
          tenantId: 'acme',
          approvalId,
          deciderId: 'alice',
          decision: i === 0 ? 'approve' : 'deny',
          note: null,
          channel: 'api',
          at: new Date(),
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toMatchObject({
        kind: 'conflict',
        code: 'already_decided',
      });
    const journaled = await dbs[0]!.query(
      "SELECT 1 FROM journal WHERE kind = 'approval' AND intent_id = $1",
      [deferred.intentId],
    );
    expect(journaled).toHaveLength(1);
    const page = await new PgApprovals(dbs[2]!).list(
      { ...bot, id: 'alice', kind: 'human', roles: ['approver'], managerId: null },
      { limit: 10 },
      {},
      new Date(),
    );
    expect(page.items.map((a) => a.id)).toContain(approvalId);
  });

  it('a grant is presented once and its effect journaled once across replicas', async () => {
    const s = await allowed('grant-1');
    const grantId = s.grant!.grantId;
    const presented = await Promise.allSettled(
      dbs.map((db) => new PgEffects(db, clock).presentGrant('acme', grantId, bot)),
    );
    expect(presented.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const effect = { status: 'succeeded' as const, effectId: 'e-1', detail: null };
    const recorded = await Promise.allSettled(
      dbs.map((db) => new PgEffects(db, clock).recordGrantEffect('acme', grantId, bot, effect)),
    );
    expect(recorded.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(
      recorded.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code),
    ).toEqual(['effect_recorded', 'effect_recorded']);
  });

  it('start-up recovery seals only its own replica id’s pending calls; a live id is not taken twice', async () => {
    for (const [id, owner] of [
      ['exe_mine', 'replica-0'],
      ['exe_theirs', 'replica-1'],
      ['exe_sqlite', 'dmn_copied'], // left pending by a SQLite daemon, copied by svc store migrate
    ]) {
      const s = await allowed(`exec-${id}`);
      await dbs[0]!.query(
        `INSERT INTO executions (tenant_id, id, intent_id, task_id, step, actor_id, capability, action, tier, surface_id,
           operation, credential_ref, state, created_at, owner_pid, owner_instance)
         VALUES ('acme', $1, $2, 'keys', $1, 'bot', 'crm.notes', 'write', 1, 'crm', 'contacts.create', 'env:X', 'pending', $3, 1, $4)`,
        [id, s.intentId, AT, owner],
      );
    }
    const queue = new PgCommitQueue(dbs[0]!);
    const mine = new PgExecutions(dbs[0]!, clock, queue, replicaOwner('replica-0'));
    try {
      expect(await mine.markInterrupted()).toBe(2);
      const states = await dbs[0]!.query<{ id: string; state: string }>(
        "SELECT id, state FROM executions WHERE id LIKE 'exe_%' ORDER BY id",
      );
      expect(states).toEqual([
        { id: 'exe_mine', state: 'unknown' },
        { id: 'exe_sqlite', state: 'unknown' },
        { id: 'exe_theirs', state: 'pending' },
      ]);
      expect(() => replicaOwner('dmn_copied')).toThrow(/replica id/);
      // a second live daemon under the same id is refused while the first holds it
      await expect(ReplicaClaim.take(dbs[1]!, replicaOwner('replica-0'))).rejects.toMatchObject({
        kind: 'conflict',
      });
      // the later real answer still lands on a call recovery judged unknown, once
      const outcome = {
        outcome: 'succeeded' as const,
        sent: true,
        status: 201,
        effectId: 'c-1',
        digest: null,
        bytes: 2,
        error: null,
        reason: 'created',
        sentDigest: null,
      };
      await mine.finish('acme', 'exe_mine', outcome);
      await expect(mine.finish('acme', 'exe_mine', outcome)).rejects.toBeInstanceOf(SvcError);
    } finally {
      await mine.release();
    }
    const claim = await ReplicaClaim.take(dbs[1]!, replicaOwner('replica-0'));
    await claim.release();
  });

  it('a redaction blanks its range and journals R; an overlapping one is refused', async () => {
    const r = await new PgRedactions(dbs[1]!).redact({
      tenantId: 'acme',
      from: 1,
      to: 2,
      reason: 'retention',
      authorisedBy: 'alice',
      at: new Date().toISOString(),
    });
    const rows = await dbs[0]!.query<{ sequence: string; record: string; tombstone: string | null }>(
      "SELECT sequence, record, tombstone FROM journal WHERE tenant_id = 'acme' AND sequence IN (1, 2, $1) ORDER BY sequence",
      [r.sequence],
    );
    expect(rows.map((x) => x.record.length > 2)).toEqual([false, false, true]);
    expect(rows.every((x) => x.tombstone !== null)).toBe(true);
    await expect(
      new PgRedactions(dbs[2]!).redact({
        tenantId: 'acme',
        from: 2,
        to: 3,
        reason: 'retention',
        authorisedBy: 'alice',
        at: new Date().toISOString(),
      }),
    ).rejects.toMatchObject({ kind: 'conflict' });
    await expect(
      new PgRedactions(dbs[2]!).redact({
        tenantId: 'acme',
        from: 4,
        to: 4,
        reason: 'retention',
        authorisedBy: 'bot',
        at: new Date().toISOString(),
      }),
    ).rejects.toMatchObject({ kind: 'invalid_request' });
    const snapshot = await new PgJournalExports(dbs[0]!).snapshot('acme');
    try {
      expect(await snapshot.redactedPast(1)).toBe(true);
      expect(await snapshot.redactedPast(snapshot.size)).toBe(false);
      // the head signed in the first case streams as an anchor line with its timestamp
      const lines = [];
      for await (const page of snapshot.items(snapshot.size, {})) lines.push(...page);
      expect(lines.filter((l) => l.type === 'entry')).toHaveLength(snapshot.size);
      expect(lines.filter((l) => l.type === 'anchor')).toEqual([
        expect.objectContaining({
          type: 'anchor',
          head: expect.objectContaining({ tree_size: 1 }),
          timestamp: expect.objectContaining({ noop: true }),
        }),
      ]);
    } finally {
      await snapshot.close();
    }
  });
});
