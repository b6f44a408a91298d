import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decisionWorld } from '../helpers/decision-world.js';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { pgCtl, serverBinDir, startServer, startStandby, stopServer } from '../helpers/postgres-server.js';
import { tmpDir } from '../helpers/tmp.js';

/** Servers of their own: these suites stop, restart and promote them. */
const noServer = (() => {
  try {
    serverBinDir();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
})();
if (noServer !== undefined) console.warn(`PostgreSQL faults e2e skipped: ${noServer}`);

interface Answer {
  status: number;
  body: {
    decision?: string;
    code?: string;
    reason?: string;
    remedy?: string;
    intent_id?: string;
    receipt?: { receipt_id: string; sequence: number };
  };
}

/** One tenant with an agent allowed to write notes on a task with room to spare, and its journal key. */
async function seed(
  env: Record<string, string>,
  dir: string,
): Promise<{ ca: Buffer; bot: string; publicKey: string }> {
  const { caCert, bot } = await decisionWorld(env, dir, { id: 'keys', budgetUsd: '1000' });
  const publicKey = (await runJson<{ public_key: string }>(['key', 'show', '--tenant', 'acme'], env))
    .public_key;
  return { ca: readFileSync(caCert), bot, publicKey };
}

/** A client of one daemon replica. */
function client(daemon: DaemonProcess, ca: Buffer, bot: string, connections = 4) {
  const pool = new Pool(daemon.url, { connect: { ca }, connections, pipelining: 1 });
  const request = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> => {
    const res = await pool.request({
      method,
      path,
      headers: { authorization: `Bearer ${bot}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.statusCode, body: (await res.body.json()) as Answer['body'] };
  };
  const act = (step: string) =>
    request('POST', '/v1/action', {
      tenant_id: 'acme',
      actor_id: 'bot',
      capability: 'crm.notes',
      action: 'write',
      task_id: 'keys',
      effect_key_step: step,
    });
  return { pool, request, act };
}
type Client = ReturnType<typeof client>;

/**
 * Load over every replica until told to stop: worker `w` asks the same effect keys through
 * each replica, so two replicas contest every key. Every answer is kept.
 */
function load(clients: Client[], prefix: string, workers: number) {
  const answers: { step: string; answer: Answer }[] = [];
  const stop = { now: false };
  const run = async (c: Client, w: number) => {
    for (let i = 0; !stop.now; i++) {
      const step = `${prefix}-w${w}-${i}`;
      try {
        answers.push({ step, answer: await c.act(step) });
      } catch (err) {
        answers.push({ step, answer: { status: 0, body: { reason: (err as Error).message } } });
      }
    }
  };
  const done = Promise.all(clients.flatMap((c) => Array.from({ length: workers }, (_, w) => run(c, w))));
  return {
    answers,
    /** resolves once `n` answers more than now have come back */
    async more(n: number): Promise<void> {
      const target = answers.length + n;
      while (answers.length < target) await new Promise((r) => setTimeout(r, 20));
    },
    async end(): Promise<typeof answers> {
      stop.now = true;
      await done;
      return answers;
    },
  };
}

/** Until GET /readyz answers 200 (bounded by the test's own timeout). */
async function ready(c: Client): Promise<void> {
  for (;;) {
    const res = await c.pool.request({ method: 'GET', path: '/readyz' });
    await res.body.dump();
    if (res.statusCode === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * What must hold after any fault: every acknowledged (200 allowed) decision is in the journal
 * at the sequence its receipt names, no effect key was allowed twice, the sequences are
 * contiguous, one anchor per tree size, and the export verifies.
 */
async function expectIntact(
  url: string,
  acks: Answer[],
  env: Record<string, string>,
  dir: string,
  publicKey: string,
): Promise<void> {
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  try {
    const found = await sql.query<{ intent_id: string; receipt_id: string; sequence: number }>(
      `SELECT intent_id, receipt_id, sequence::int AS sequence FROM journal WHERE tenant_id = 'acme' AND kind = 'decision' AND allowed = 1`,
    );
    const at = new Map(found.rows.map((r) => [r.receipt_id, r]));
    for (const a of acks) {
      const row = at.get(a.body.receipt!.receipt_id);
      expect(row?.sequence, a.body.intent_id).toBe(a.body.receipt!.sequence);
      expect(row?.intent_id).toBe(a.body.intent_id);
    }
    const twice = await sql.query(
      `SELECT task_id, record::json ->> 'effect_key_step' AS step, count(*) AS n FROM journal
       WHERE tenant_id = 'acme' AND kind = 'decision' AND allowed = 1
       GROUP BY 1, 2 HAVING count(*) > 1`,
    );
    expect(twice.rows).toEqual([]);
    const seq = await sql.query<{ n: number; lo: number; hi: number; size: number }>(
      `SELECT count(*)::int AS n, min(sequence)::int AS lo, max(sequence)::int AS hi,
         (SELECT size::int FROM journal_state WHERE tenant_id = 'acme') AS size
       FROM journal WHERE tenant_id = 'acme'`,
    );
    expect(seq.rows[0]!.lo).toBe(1);
    expect(seq.rows[0]!.hi).toBe(seq.rows[0]!.n);
    expect(seq.rows[0]!.size).toBe(seq.rows[0]!.n);
    const heads = await sql.query(
      `SELECT tree_size, count(*)::int AS n FROM anchors WHERE tenant_id = 'acme' GROUP BY 1 HAVING count(*) > 1`,
    );
    expect(heads.rows).toEqual([]);
  } finally {
    await sql.end();
  }
  const file = join(dir, `acme-${Date.now()}.jsonl`);
  await runJson(['export', '--tenant', 'acme', '--out', file], { ...env, SVC_STORE: url });
  const exported = new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { intent_id?: string }).intent_id),
  );
  for (const a of acks) expect(exported.has(a.body.intent_id), a.body.intent_id).toBe(true);
  const verdict = await runSvc(['verify', file, '--public-key', publicKey, '--json'], env);
  expect(verdict.code, verdict.stdout).toBe(0);
  expect(JSON.parse(verdict.stdout).result).toMatch(/^pass/);
}

const acked = (answers: { answer: Answer }[]) =>
  answers.map((a) => a.answer).filter((a) => a.status === 200 && a.body.decision === 'allowed');

describe.skipIf(noServer !== undefined)('two daemon replicas on a PostgreSQL server that fails', () => {
  const tmp = tmpDir('svc-e2e-pg-faults-');
  const pgRoot = tmpDir('svc-e2e-pg-faults-server-');
  const daemons: (DaemonProcess | undefined)[] = [];
  let env: Record<string, string>;
  let url: string;
  let ca: Buffer;
  let bot: string;
  let publicKey: string;

  beforeAll(async () => {
    ({ url } = await startServer(pgRoot.path, { ownerPid: process.pid }));
    env = { SVC_HOME: join(tmp.path, 'home'), SVC_STORE: url };
    ({ ca, bot, publicKey } = await seed(env, tmp.path));
    // A replica stopped inside a transaction holds the tenant's lock: the server ends that
    // transaction after idle_in_transaction_session_timeout (set short here, in the URL).
    for (const i of [0, 1])
      daemons[i] = await startDaemonProcess(['--anchor-interval', '1s'], {
        ...env,
        SVC_STORE: `${url}?idle_in_transaction_session_timeout=3000`,
        SVC_REPLICA_ID: `r${i}`,
      });
  }, 180_000);

  afterAll(async () => {
    for (const d of daemons) d?.child.kill('SIGKILL');
    stopServer(pgRoot.path);
    pgRoot.cleanup();
    tmp.cleanup();
  });

  const logs = () => daemons.map((d) => `${d?.stdout() ?? ''}${d?.stderr() ?? ''}`).join('\n');

  it('a restart under load: 503 unavailable while it is down, never a 500; the daemons recover on their own', async () => {
    const clients = daemons.map((d) => client(d!, ca, bot));
    try {
      const run = load(clients, 'restart', 8);
      await run.more(100);
      const during = run.answers.length;
      let downAnswers: Answer[] = [];
      let readyz: Answer | undefined;
      let healthz: Answer | undefined;
      // asynchronous, so the load meets the shutdown mid-flight (pg_ctl restart -m fast, split
      // in two to look at the daemons while the server is down)
      await pgCtl(pgRoot.path, ['-m', 'fast', '-w', '-t', '60', 'stop']);
      try {
        await run.more(40);
        readyz = await clients[0]!.request('GET', '/readyz');
        healthz = await clients[1]!.request('GET', '/healthz');
        downAnswers = run.answers.slice(during).map((a) => a.answer);
      } finally {
        await pgCtl(pgRoot.path, ['-l', join(pgRoot.path, 'server.log'), '-w', '-t', '60', 'restart']);
      }
      await Promise.all(clients.map(ready));
      await run.more(100);
      const answers = await run.end();

      expect(readyz).toMatchObject({ status: 503, body: { code: 'unavailable' } });
      expect(healthz).toMatchObject({ status: 200 });
      expect(downAnswers.filter((a) => a.status === 503).length).toBeGreaterThan(0);
      const statuses = new Map<number, number>();
      for (const { answer } of answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const odd = answers.filter(({ answer: a }) => ![200, 409, 503].includes(a.status));
      expect(odd.slice(0, 3), JSON.stringify([...statuses])).toEqual([]);
      for (const { answer: a } of answers) {
        if (a.status === 503) {
          expect(a.body.code).toBe('unavailable');
          expect(a.body.remedy).toMatch(/same body|same effect key/);
        }
        if (a.status === 409) expect(a.body.code).toBe('duplicate_effect');
      }
      expect(logs()).not.toMatch(/"statusCode":500|"code":"internal"/);
      // recovered without a restart: the last answers are decisions again
      expect(answers.slice(-20).some(({ answer: a }) => a.status === 200)).toBe(true);
      await expectIntact(url, acked(answers), env, tmp.path, publicKey);
    } finally {
      await Promise.all(clients.map((c) => c.pool.destroy()));
    }
  }, 240_000);

  it('an outside session holds a table lock the decisions need, on a pool of two: bounded 503s, then decisions again', async () => {
    // pool_size=2, one held for the replica id: the batch waiting on the lock holds the only
    // other connection, so every other read waits for the pool (connect_timeout) as well as
    // for the lock (the queue's lock_timeout)
    const small = await startDaemonProcess([], {
      ...env,
      SVC_STORE: `${url}?pool_size=2&connect_timeout=2&statement_timeout=8000`,
      SVC_REPLICA_ID: 'small-pool',
    });
    const c = client(small, ca, bot, 8);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      expect(await c.act('lock-before')).toMatchObject({ status: 200 });
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE journal IN ACCESS EXCLUSIVE MODE');
      let held: Answer[];
      try {
        // every request answers while the lock is held: none hangs (the test's timeout is the bound)
        held = await Promise.all(Array.from({ length: 8 }, (_, i) => c.act(`locked-${i}`)));
      } finally {
        await holder.query('ROLLBACK');
      }
      for (const a of held) {
        expect(a.status).toBe(503);
        expect(a.body.code).toBe('unavailable');
        expect(a.body.reason).toMatch(/nothing was committed or executed/);
      }
      const after = await Promise.all(Array.from({ length: 8 }, (_, i) => c.act(`locked-${i}`)));
      expect(after.map((a) => a.body.decision)).toEqual(after.map(() => 'allowed'));
    } finally {
      await holder.end();
      await c.pool.destroy();
      expect(await small.stop()).toBe(0);
    }
  }, 240_000);

  it('a replica stopped (SIGSTOP) mid-load and continued (SIGCONT): the other decides meanwhile, nothing is corrupted', async () => {
    const clients = daemons.map((d) => client(d!, ca, bot));
    try {
      const run = load(clients, 'sigstop', 4);
      await run.more(100);
      daemons[0]!.child.kill('SIGSTOP');
      let whileStopped: number;
      try {
        // the other replica goes on deciding: the server ends the stopped one's transaction
        const before = run.answers.filter((a) => a.answer.status === 200).length;
        for (;;) {
          await run.more(10);
          whileStopped = run.answers.filter((a) => a.answer.status === 200).length - before;
          if (whileStopped >= 20) break;
        }
      } finally {
        daemons[0]!.child.kill('SIGCONT');
      }
      await Promise.all(clients.map(ready));
      await run.more(100);
      const answers = await run.end();
      expect(whileStopped).toBeGreaterThanOrEqual(20);
      const odd = answers.filter(({ answer: a }) => ![200, 409, 503].includes(a.status));
      expect(odd.slice(0, 3)).toEqual([]);
      // both replicas decide again after SIGCONT, without a restart
      expect(daemons.every((d) => d!.child.exitCode === null)).toBe(true);
      const r0 = await clients[0]!.act('sigstop-after');
      expect(r0).toMatchObject({ status: 200, body: { decision: 'allowed' } });
      expect(logs()).not.toMatch(/"statusCode":500|"code":"internal"/);
      await expectIntact(url, [...acked(answers), r0], env, tmp.path, publicKey);
    } finally {
      await Promise.all(clients.map((c) => c.pool.destroy()));
    }
  }, 240_000);
});

describe.skipIf(noServer !== undefined)('failover to a promoted streaming standby (multi-host URL)', () => {
  const tmp = tmpDir('svc-e2e-pg-failover-');
  const primaryRoot = tmpDir('svc-e2e-pg-primary-');
  const standbyRoot = tmpDir('svc-e2e-pg-standby-');
  const daemons: (DaemonProcess | undefined)[] = [];
  let env: Record<string, string>;
  let primaryUrl: string;
  let standbyUrl: string;
  let ca: Buffer;
  let bot: string;
  let publicKey: string;

  beforeAll(async () => {
    ({ url: primaryUrl } = await startServer(primaryRoot.path, { ownerPid: process.pid }));
    env = { SVC_HOME: join(tmp.path, 'home'), SVC_STORE: primaryUrl };
    ({ ca, bot, publicKey } = await seed(env, tmp.path));
    ({ url: standbyUrl } = await startStandby(standbyRoot.path, primaryUrl, { ownerPid: process.pid }));
    // An acknowledged commit is on the standby: the primary waits for it before COMMIT returns.
    const sql = new pg.Client({ connectionString: primaryUrl });
    await sql.connect();
    try {
      await sql.query("ALTER SYSTEM SET synchronous_standby_names = '*'");
      await sql.query('SELECT pg_reload_conf()');
      for (;;) {
        const { rows } = await sql.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_replication WHERE sync_state = 'sync' AND state = 'streaming'",
        );
        if (rows[0]!.n === 1) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await sql.end();
    }
    const hosts = (u: string) => new URL(u).host;
    const multi = `postgresql://postgres@${hosts(primaryUrl)},${hosts(standbyUrl)}/postgres?target_session_attrs=read-write`;
    for (const i of [0, 1])
      daemons[i] = await startDaemonProcess(['--anchor-interval', '1s'], {
        ...env,
        SVC_STORE: multi,
        SVC_REPLICA_ID: `f${i}`,
      });
  }, 180_000);

  afterAll(async () => {
    for (const d of daemons) d?.child.kill('SIGKILL');
    stopServer(primaryRoot.path);
    stopServer(standbyRoot.path);
    primaryRoot.cleanup();
    standbyRoot.cleanup();
    tmp.cleanup();
  });

  it('the primary stops under load, the standby is promoted: the daemons move to it on their own and lose nothing', async () => {
    const clients = daemons.map((d) => client(d!, ca, bot));
    try {
      const run = load(clients, 'failover', 4);
      await run.more(100);
      await pgCtl(primaryRoot.path, ['-m', 'immediate', '-w', '-t', '60', 'stop']);
      await run.more(20);
      await pgCtl(standbyRoot.path, ['-w', '-t', '60', 'promote']);
      await Promise.all(clients.map(ready));
      const after = run.answers.length;
      await run.more(100);
      const answers = await run.end();

      const odd = answers.filter(({ answer: a }) => ![200, 409, 503].includes(a.status));
      expect(odd.slice(0, 3)).toEqual([]);
      for (const { answer: a } of answers) if (a.status === 503) expect(a.body.code).toBe('unavailable');
      // decided on the promoted standby, without a restart of either daemon
      expect(answers.slice(after).filter(({ answer: a }) => a.status === 200).length).toBeGreaterThan(0);
      expect(daemons.every((d) => d!.child.exitCode === null)).toBe(true);
      const logs = daemons.map((d) => `${d!.stdout()}${d!.stderr()}`).join('\n');
      expect(logs).not.toMatch(/"statusCode":500|"code":"internal"/);
      await expectIntact(standbyUrl, acked(answers), env, tmp.path, publicKey);
    } finally {
      await Promise.all(clients.map((c) => c.pool.destroy()));
    }
  }, 240_000);
});
