import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { downstream, type Downstream } from '../helpers/downstream.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { tmpDir } from '../helpers/tmp.js';

const server = await pgAvailable();
if ('skip' in server) console.warn(`replicas e2e skipped: ${server.skip}`);

const REPLICAS = 3;
/** shared effect keys: each is asked for once through every replica at the same moment */
const CONTESTED_KEYS = 80;
/** decisions on the small budget, spread over the replicas: far more than it can pay for */
const BUDGET_DECISIONS = 240;
/** 0.01 USD a decision: 150 can be paid, the rest must be refused */
const BUDGET_USD = '1.5';
const COST_MICROS = 10_000;

interface Answer {
  status: number;
  body: {
    decision?: 'allowed' | 'refused' | 'deferred';
    code?: string;
    intent_id?: string;
    amount_usd?: string | number;
    receipt?: { receipt_id: string; sequence: number };
  };
}

/**
 * The proof: three built daemons on one PostgreSQL database (shared data dir for
 * keys and certificate), hundreds of concurrent decisions across them on shared tasks and
 * effect keys. No overspend, no effect key allowed twice, contiguous sequences, the export
 * verifies; then SIGKILL of one replica mid-load loses no acknowledged decision.
 */
describe.skipIf('skip' in server)(
  'several daemon replicas on one PostgreSQL database (built binary, TLS)',
  () => {
    const tmp = tmpDir('svc-e2e-replicas-');
    const t = ['--tenant', 'acme'];
    const daemons: (DaemonProcess | undefined)[] = [];
    let env: Record<string, string>;
    let database: { url: string; drop(): Promise<void> };
    let sql: pg.Client;
    let ca: Buffer;
    let bot: string;
    let publicKey: string;

    const ops = join(tmp.path, 'ops.yaml');
    let ds: Downstream;
    const start = (i: number) =>
      startDaemonProcess(['--integration-ops', ops], { ...env, SVC_REPLICA_ID: `replica-${i}` });

    beforeAll(async () => {
      database = await freshDatabase();
      env = {
        SVC_HOME: join(tmp.path, 'home'),
        SVC_STORE: database.url,
        REPLICAS_CRM_TOKEN: 'replicas-crm-token',
      };
      ds = await downstream();
      writeFileSync(
        ops,
        `surfaces:
  - id: crm
    adapter: http
    base_url: ${ds.url}
    credential_ref: env:REPLICAS_CRM_TOKEN
    auth: { type: bearer }
    timeout_ms: 60000
    check: { method: GET, path: /health }
    operations:
      contacts.create:
        method: POST
        path: /contacts
        effect_id: /id
`,
      );
      const init = await runJson<{ ca_cert: string }>(['init', ...t, '--admin', 'alice'], env);
      ca = readFileSync(init.ca_cert);
      publicKey = (await runJson<{ public_key: string }>(['key', 'show', ...t], env)).public_key;
      await runJson(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice'], env);
      await runJson(
        ['capability', 'register', ...t, '--name', 'crm.notes', '--actions', 'write', '--tier', '1'],
        env,
      );
      await runJson(
        [
          'capability',
          'register',
          ...t,
          '--name',
          'crm.paid',
          '--actions',
          'write',
          '--tier',
          '1',
          '--cost-usd',
          '0.01',
        ],
        env,
      );
      await runJson(
        [
          ...[
            'capability',
            'register',
            ...t,
            '--name',
            'crm.contacts.create',
            '--actions',
            'write',
            '--tier',
            '1',
          ],
          ...['--custody', 'brokered', '--surface', 'crm', '--operation', 'contacts.create'],
        ],
        env,
      );
      for (const cap of ['crm.notes', 'crm.paid', 'crm.contacts.create'])
        await runJson(['permission', 'grant', ...t, '--actor', 'bot', '--capability', cap], env);
      const policy = join(tmp.path, 'policy.cedar');
      writeFileSync(policy, 'permit (principal, action, resource);\n');
      await runJson(['policy', 'set', ...t, '--file', policy], env);
      for (const [task, budget] of [
        ['keys', '1000'],
        ['small', BUDGET_USD],
      ] as const) {
        await runJson(
          [
            'task',
            'create',
            ...t,
            '--id',
            task,
            '--sponsor',
            'alice',
            '--budget-usd',
            budget,
            '--actor',
            'bot',
          ],
          env,
        );
      }
      bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
      for (let i = 0; i < REPLICAS; i++) daemons[i] = await start(i);
      sql = new pg.Client({ connectionString: database.url });
      await sql.connect();
    }, 120_000);

    afterAll(async () => {
      for (const d of daemons) d?.child.kill('SIGKILL');
      await sql?.end();
      await ds?.close();
      await database?.drop();
      tmp.cleanup();
    });

    async function ask(pool: Pool, capability: string, task: string, step: string): Promise<Answer> {
      const res = await pool.request({
        method: 'POST',
        path: '/v1/action',
        headers: { authorization: `Bearer ${bot}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          tenant_id: 'acme',
          actor_id: 'bot',
          capability,
          action: 'write',
          task_id: task,
          effect_key_step: step,
        }),
      });
      return { status: res.statusCode, body: (await res.body.json()) as Answer['body'] };
    }

    const pools = () =>
      daemons.map((d) => new Pool(d!.url, { connect: { ca }, connections: 8, pipelining: 1 }));

    it('hundreds of concurrent decisions across three replicas: no overspend, no double allow, one log', async () => {
      const ps = pools();
      try {
        const contested = Array.from({ length: CONTESTED_KEYS }, (_, k) =>
          ps.map((p) => ask(p, 'crm.notes', 'keys', `k-${k}`)),
        ).flat();
        const budget = Array.from({ length: BUDGET_DECISIONS }, (_, i) =>
          ask(ps[i % REPLICAS]!, 'crm.paid', 'small', `b-${i}`),
        );
        const [keyAnswers, budgetAnswers] = await Promise.all([Promise.all(contested), Promise.all(budget)]);

        // Every effect key: exactly one replica allowed it, the others saw the claim.
        for (let k = 0; k < CONTESTED_KEYS; k++) {
          const three = keyAnswers.slice(k * REPLICAS, (k + 1) * REPLICAS);
          expect(three.filter((a) => a.body.decision === 'allowed').length, `k-${k}`).toBe(1);
          expect(three.filter((a) => a.status === 409 && a.body.code === 'duplicate_effect').length).toBe(
            REPLICAS - 1,
          );
        }
        // The small budget: exactly what it can pay for was allowed, the rest refused for budget.
        const allowed = budgetAnswers.filter((a) => a.body.decision === 'allowed');
        expect(allowed.length).toBe(Math.round(Number(BUDGET_USD) * 1e6) / COST_MICROS);
        expect(
          budgetAnswers.filter((a) => a.status === 403 && a.body.code === 'budget_exceeded').length,
        ).toBe(BUDGET_DECISIONS - allowed.length);
      } finally {
        await Promise.all(ps.map((p) => p.destroy()));
      }

      const [small] = (
        await sql.query(
          `SELECT t.budget_micros::text AS budget, t.reserved_micros::text AS reserved,
           (SELECT coalesce(sum(j.amount_micros), 0)::text FROM journal j WHERE j.tenant_id = t.tenant_id
              AND j.task_id = t.id AND j.kind = 'decision' AND j.allowed = 1) AS journaled
         FROM tasks t WHERE t.tenant_id = 'acme' AND t.id = 'small'`,
        )
      ).rows as { budget: string; reserved: string; journaled: string }[];
      expect(BigInt(small!.reserved)).toBeLessThanOrEqual(BigInt(small!.budget));
      expect(small!.journaled).toBe(small!.reserved);
      const twice = await sql.query(
        `SELECT task_id, effect_key_step, count(*) AS n FROM (
         SELECT task_id, record::json ->> 'effect_key_step' AS effect_key_step FROM journal
         WHERE tenant_id = 'acme' AND kind = 'decision' AND allowed = 1) d
       GROUP BY task_id, effect_key_step HAVING count(*) > 1`,
      );
      expect(twice.rows).toEqual([]);
      await expectContiguous();
    }, 180_000);

    it('SIGKILL of one replica mid-load loses no acknowledged decision; the export verifies', async () => {
      const acks: Answer[] = [];
      const stop = { now: false };
      const ps = pools();
      const worker = async (pool: Pool, id: string) => {
        for (let i = 0; !stop.now; i++) {
          try {
            const a = await ask(pool, 'crm.notes', 'keys', `${id}-${i}`);
            if (a.status === 200) acks.push(a);
          } catch {
            return; // its replica died under the request: nothing was acknowledged
          }
        }
      };
      const load = ps.flatMap((p, r) => Array.from({ length: 4 }, (_, w) => worker(p, `kill-r${r}-w${w}`)));
      while (acks.length < 60) await new Promise((r) => setTimeout(r, 20));
      daemons[0]!.child.kill('SIGKILL');
      daemons[0] = undefined;
      await new Promise((r) => setTimeout(r, 300));
      stop.now = true;
      await Promise.all(load);
      await Promise.all(ps.map((p) => p.destroy()));
      expect(acks.length).toBeGreaterThan(60);

      const receipts = acks.map((a) => a.body.receipt!.receipt_id);
      const found = await sql.query(
        `SELECT receipt_id, sequence::int AS sequence FROM journal WHERE tenant_id = 'acme' AND receipt_id = ANY($1)`,
        [receipts],
      );
      const at = new Map(
        found.rows.map((r: { receipt_id: string; sequence: number }) => [r.receipt_id, r.sequence]),
      );
      for (const a of acks)
        expect(at.get(a.body.receipt!.receipt_id), a.body.intent_id).toBe(a.body.receipt!.sequence);
      await expectContiguous();

      // The killed replica restarts under its own id and recovers only its own calls; all stop cleanly.
      daemons[0] = await start(0);
      for (let i = 0; i < REPLICAS; i++) {
        expect(await daemons[i]!.stop()).toBe(0);
        daemons[i] = undefined;
      }
      const file = join(tmp.path, 'acme.jsonl');
      await runJson(['export', ...t, '--out', file], env);
      const verdict = await runSvc(['verify', file, '--public-key', publicKey, '--json'], env);
      expect(verdict.code, verdict.stdout).toBe(0);
      expect(JSON.parse(verdict.stdout).result).toMatch(/^pass/);
    }, 180_000);

    it('start-up recovery judges only its own replica id’s calls; another replica’s open call finishes as it answers', async () => {
      // The provider holds every call open until told to answer.
      const held: (() => void)[] = [];
      ds.handle((c, res) => {
        held.push(() => res.writeHead(201).end(JSON.stringify({ id: `c-${c.body.length}` })));
      });
      daemons[0] = await start(0);
      daemons[1] = await start(1);
      const pools = [0, 1].map((i) => new Pool(daemons[i]!.url, { connect: { ca }, connections: 1 }));
      const broker = (i: number, step: string) =>
        pools[i]!.request({
          method: 'POST',
          path: '/v1/brokered',
          headers: { authorization: `Bearer ${bot}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            tenant_id: 'acme',
            actor_id: 'bot',
            capability: 'crm.contacts.create',
            action: 'write',
            task_id: 'keys',
            effect_key_step: step,
            params: { name: step },
          }),
        });
      const lost = broker(0, 'held-by-0').catch((err: Error) => err);
      const survives = broker(1, 'held-by-1');
      while (held.length < 2) await new Promise((r) => setTimeout(r, 20));
      const pending = async () =>
        (
          await sql.query(
            `SELECT owner_instance, state FROM executions WHERE tenant_id = 'acme' AND step LIKE 'held-by-%' ORDER BY step`,
          )
        ).rows as { owner_instance: string; state: string }[];
      expect(await pending()).toEqual([
        { owner_instance: 'replica-0', state: 'pending' },
        { owner_instance: 'replica-1', state: 'pending' },
      ]);

      daemons[0]!.child.kill('SIGKILL');
      daemons[0] = undefined;
      expect(await lost).toBeInstanceOf(Error);
      // A new replica under another id touches neither call.
      daemons[2] = await start(2);
      expect((await pending()).map((r) => r.state)).toEqual(['pending', 'pending']);
      // replica-0 back under its own id: its own interrupted call becomes unknown, replica-1's stays open.
      daemons[0] = await start(0);
      expect(daemons[0].stdout()).toMatch(/interrupted brokered executions recorded as outcome unknown/);
      expect((await pending()).map((r) => r.state)).toEqual(['unknown', 'pending']);
      // A second live daemon under a held id is refused at start.
      await expect(start(1)).rejects.toThrow(/replica id replica-1 is held by another live daemon/);

      for (const answer of held) answer();
      const answered = await survives;
      expect(answered.statusCode).toBe(200);
      expect(await answered.body.json()).toMatchObject({
        decision: 'allowed',
        provider: { outcome: 'succeeded' },
      });
      expect((await pending()).map((r) => r.state)).toEqual(['unknown', 'succeeded']);
      const records = await sql.query(
        `SELECT intent_id, count(*)::int AS n FROM journal WHERE tenant_id = 'acme' AND kind = 'execution'
       GROUP BY intent_id HAVING count(*) > 1`,
      );
      expect(records.rows).toEqual([]);
      await Promise.all(pools.map((p) => p.destroy()));
      for (let i = 0; i < REPLICAS; i++) {
        expect(await daemons[i]!.stop()).toBe(0);
        daemons[i] = undefined;
      }
      await expectContiguous();
    }, 180_000);

    async function expectContiguous(): Promise<void> {
      const { rows } = await sql.query(
        `SELECT count(*)::int AS n, min(sequence)::int AS lo, max(sequence)::int AS hi,
         (SELECT size::int FROM journal_state WHERE tenant_id = 'acme') AS size
       FROM journal WHERE tenant_id = 'acme'`,
      );
      const r = rows[0] as { n: number; lo: number; hi: number; size: number };
      expect(r.lo).toBe(1);
      expect(r.hi).toBe(r.n);
      expect(r.size).toBe(r.n);
    }
  },
);
