import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { downstream, type Downstream } from '../helpers/downstream.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * Bounded: three rounds, a handful of workers per daemon. A round's load runs at least
 * MIN_LOAD_MS plus a random part (so kills land at different points of a decision) and
 * until every kind has been acknowledged PER_ROUND times, capped at MAX_LOAD_MS: on a
 * loaded machine each kind still gets exercised before the kill.
 */
const ROUNDS = 3;
const MIN_LOAD_MS = 800;
const MAX_LOAD_MS = 10_000;
const PER_ROUND = 3;
const WORKERS = 4;

type Kind = 'allowed' | 'refused' | 'deferred' | 'brokered';
const KINDS: Kind[] = ['allowed', 'refused', 'deferred', 'brokered'];

/** A decision the daemon answered: what a client may rely on after any crash. */
interface Ack {
  kind: Kind;
  outcome: 'allowed' | 'refused' | 'deferred';
  intentId: string;
  receiptId: string;
  amountUsd: number;
  /** brokered: the journal record of the provider's outcome */
  executionReceiptId?: string;
}

interface Decision {
  decision: Ack['outcome'];
  intent_id: string;
  amount_usd: number;
  receipt: { receipt_id: string };
  provider?: { receipt?: { receipt_id: string } } | null;
}

/**
 * Crash consistency under SIGKILL: two daemon processes on one data dir (the SQLite write
 * lock arbitrates), all four decision kinds under load, a daemon (then the other, then
 * both) killed mid-load each round and restarted on a new port. Afterwards every decision
 * a client saw acknowledged is in the journal as acknowledged, every task's reservation is
 * the sum of its allowed decisions, no execution is left pending or sent twice, and the
 * export verifies. Extends the single-kill brokered test in brokered.test.ts to every kind,
 * several rounds and two writers.
 */
describe('crash consistency: SIGKILL under load, two daemons on one data dir (built binary, TLS)', () => {
  const tmp = tmpDir('svc-e2e-crash-');
  const env = { SVC_HOME: join(tmp.path, 'home'), CRASH_CRM_TOKEN: 'crash-suite-token' };
  const t = ['--tenant', 'acme'];
  const ops = join(tmp.path, 'ops.yaml');
  const daemons: (DaemonProcess | undefined)[] = [undefined, undefined];
  let ds: Downstream;
  let ca: Buffer;
  let bot: string;
  let publicKey: string;
  const acks: Ack[] = [];
  /** answers that were not decisions: only 503 (nothing decided, retry) is acceptable */
  const undecided: string[] = [];

  // Deferrals pile up under load; the bound on open approvals (tested on its own) would turn
  // them into refusals, which is not what this suite checks.
  const unbounded = ['--max-open-approvals-per-actor', '100000', '--max-open-approvals-per-task', '100000'];
  const start = () => startDaemonProcess(['--integration-ops', ops, ...unbounded], env);

  beforeAll(async () => {
    ds = await downstream();
    // A provider that takes a moment, so kills land while calls are open.
    ds.handle((_c, res) => {
      setTimeout(
        () => {
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ id: `c-${ds.calls.length}` }));
        },
        Math.floor(Math.random() * 15),
      );
    });
    const init = await runJson<{ ca_cert: string }>(['init', ...t, '--admin', 'alice'], env);
    ca = readFileSync(init.ca_cert);
    publicKey = (await runJson<{ public_key: string }>(['key', 'show', ...t], env)).public_key;
    await runJson(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice'], env);
    const register = (name: string, ...more: string[]) =>
      runJson(['capability', 'register', ...t, '--name', name, '--actions', 'write', ...more], env);
    await register('crm.notes', '--tier', '1', '--cost-usd', '0.01');
    await register('hr.records', '--tier', '1'); // never granted: refused
    await register('payments.send', '--tier', '2', '--irreversible', '--cost-usd', '1'); // deferred
    await register(
      'crm.contacts.create',
      '--tier',
      '1',
      '--cost-usd',
      '0.02',
      '--custody',
      'brokered',
      '--surface',
      'crm',
      '--operation',
      'contacts.create',
    );
    for (const cap of ['crm.notes', 'payments.send', 'crm.contacts.create']) {
      await runJson(['permission', 'grant', ...t, '--actor', 'bot', '--capability', cap], env);
    }
    const policy = join(tmp.path, 'policy.cedar');
    writeFileSync(policy, 'permit (principal, action, resource);\n');
    await runJson(['policy', 'set', ...t, '--file', policy], env);
    for (const task of ['t1', 't2']) {
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
          '100000',
          '--actor',
          'bot',
        ],
        env,
      );
    }
    bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
    writeFileSync(
      ops,
      `surfaces:
  - id: crm
    adapter: http
    base_url: ${ds.url}
    credential_ref: env:CRASH_CRM_TOKEN
    auth: { type: bearer }
    timeout_ms: 10000
    check: { method: GET, path: /health }
    operations:
      contacts.create:
        method: POST
        path: /contacts
        effect_id: /id
`,
    );
  });

  afterAll(async () => {
    for (const d of daemons) d?.child.kill('SIGKILL');
    await ds?.close();
    tmp.cleanup();
  });

  function body(kind: Kind, step: string, task: string) {
    const capability = {
      allowed: 'crm.notes',
      refused: 'hr.records',
      deferred: 'payments.send',
      brokered: 'crm.contacts.create',
    }[kind];
    return {
      tenant_id: 'acme',
      actor_id: 'bot',
      capability,
      action: 'write',
      task_id: task,
      effect_key_step: step,
      ...(kind === 'brokered' ? { params: { name: step } } : {}),
    };
  }

  /** One worker: decisions of every kind until told to stop or its daemon dies. */
  async function worker(pool: Pool, id: string, stop: { now: boolean }): Promise<void> {
    for (let i = 0; !stop.now; i++) {
      const kind = KINDS[i % KINDS.length]!;
      const step = `${id}-${i}`;
      try {
        const res = await pool.request({
          method: 'POST',
          path: kind === 'brokered' ? '/v1/brokered' : '/v1/action',
          headers: { authorization: `Bearer ${bot}`, 'content-type': 'application/json' },
          body: JSON.stringify(body(kind, step, i % 3 === 0 ? 't2' : 't1')),
        });
        const text = await res.body.text();
        const d = JSON.parse(text) as Partial<Decision>;
        if (typeof d.decision !== 'string' || !d.receipt) {
          undecided.push(`${res.statusCode} ${text.slice(0, 120)}`);
          continue;
        }
        acks.push({
          kind,
          outcome: d.decision,
          intentId: d.intent_id!,
          receiptId: d.receipt.receipt_id,
          amountUsd: d.amount_usd!,
          ...(d.provider?.receipt ? { executionReceiptId: d.provider.receipt.receipt_id } : {}),
        });
      } catch {
        return; // the daemon was killed under this request: no acknowledgement, nothing to check
      }
    }
  }

  async function loadUntilEveryKindAnswered(from: number): Promise<void> {
    const begun = Date.now();
    const least = MIN_LOAD_MS + Math.random() * MIN_LOAD_MS;
    const enough = () => KINDS.every((k) => acks.slice(from).filter((a) => a.kind === k).length >= PER_ROUND);
    while (Date.now() - begun < MAX_LOAD_MS && (Date.now() - begun < least || !enough())) {
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('every acknowledged decision survives, budgets equal their reservations, the export verifies', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      for (const i of [0, 1]) daemons[i] ??= await start();
      const stop = { now: false };
      const pools = daemons.map((d) => new Pool(d!.url, { connect: { ca }, connections: WORKERS }));
      const load = pools.flatMap((pool, i) =>
        Array.from({ length: WORKERS }, (_, w) => worker(pool, `r${round}-d${i}-w${w}`, stop)),
      );
      await loadUntilEveryKindAnswered(acks.length);
      // round 0 kills the first daemon, round 1 the second, round 2 both at once
      const victims = round === 0 ? [0] : round === 1 ? [1] : [0, 1];
      for (const v of victims) {
        daemons[v]!.child.kill('SIGKILL');
        daemons[v] = undefined;
      }
      // A lone victim restarts while the other daemon is still deciding and executing: its
      // start-up recovery must judge only its own interrupted calls, never the survivor's.
      if (victims.length === 1) daemons[victims[0]!] = await start();
      await new Promise((r) => setTimeout(r, 200));
      stop.now = true;
      await Promise.all(load);
      await Promise.all(pools.map((p) => p.destroy()));
    }
    // Restart both (recovery runs), then stop them cleanly.
    for (const i of [0, 1]) daemons[i] ??= await start();
    for (const i of [0, 1]) {
      expect(await daemons[i]!.stop()).toBe(0);
      daemons[i] = undefined;
    }

    for (const kind of KINDS)
      expect(acks.filter((a) => a.kind === kind).length).toBeGreaterThanOrEqual(ROUNDS);
    expect(undecided.filter((u) => !u.startsWith('503 '))).toEqual([]);

    const db = new Database(join(env.SVC_HOME, 'svc.db'), { readonly: true });
    try {
      const byReceipt = db.prepare(
        "SELECT kind, intent_id, allowed, amount_micros FROM journal WHERE tenant_id = 'acme' AND receipt_id = ?",
      );
      const intent = db.prepare("SELECT outcome FROM intents WHERE tenant_id = 'acme' AND id = ?").pluck();
      for (const a of acks) {
        expect(byReceipt.get(a.receiptId), `${a.kind} ${a.receiptId}`).toEqual({
          kind: 'decision',
          intent_id: a.intentId,
          allowed: a.outcome === 'allowed' ? 1 : 0,
          amount_micros: Math.round(a.amountUsd * 1_000_000),
        });
        expect(intent.get(a.intentId)).toBe(a.outcome);
        if (a.executionReceiptId !== undefined) {
          expect(byReceipt.get(a.executionReceiptId)).toMatchObject({
            kind: 'execution',
            intent_id: a.intentId,
          });
        }
      }
      const expected = { allowed: 'allowed', refused: 'refused', deferred: 'deferred', brokered: 'allowed' };
      for (const a of acks) expect(a.outcome, a.kind).toBe(expected[a.kind]);

      // Budgets: each task's reservation is exactly what its journaled allowed decisions reserved
      // (admissions exist only under execution constraints, which these tasks do not have).
      const tasks = db
        .prepare(
          `SELECT t.id, t.reserved_micros AS reserved,
             (SELECT coalesce(sum(j.amount_micros), 0) FROM journal j
                WHERE j.tenant_id = t.tenant_id AND j.task_id = t.id AND j.kind = 'decision' AND j.allowed = 1) AS journaled
           FROM tasks t WHERE t.tenant_id = 'acme' ORDER BY t.id`,
        )
        .all() as { id: string; reserved: number; journaled: number }[];
      expect(tasks.map((r) => r.id)).toEqual(['t1', 't2']);
      for (const r of tasks) {
        expect(r.reserved, r.id).toBeGreaterThan(0);
        expect(r.journaled, r.id).toBe(r.reserved);
        const acked = acks
          .filter((a) => a.outcome === 'allowed' && byReceiptTask(db, a.receiptId) === r.id)
          .reduce((sum, a) => sum + Math.round(a.amountUsd * 1_000_000), 0);
        expect(acked).toBeLessThanOrEqual(r.reserved);
      }

      // Executions: none left pending after recovery; the provider was never called twice for one.
      expect(db.prepare("SELECT count(*) FROM executions WHERE state = 'pending'").pluck().get()).toBe(0);
      const executions = db.prepare('SELECT count(*) FROM executions').pluck().get() as number;
      const brokeredAllowed = db
        .prepare(
          "SELECT count(*) FROM journal WHERE kind = 'decision' AND allowed = 1 AND capability = 'crm.contacts.create'",
        )
        .pluck()
        .get();
      expect(executions).toBe(brokeredAllowed);
      // One outcome per execution: a restarting daemon must not judge the other's live calls.
      const twice = db
        .prepare(
          "SELECT intent_id, count(*) AS n FROM journal WHERE kind = 'execution' GROUP BY intent_id HAVING n > 1",
        )
        .all();
      expect(twice).toEqual([]);
      const sent = ds.calls.map((c) => (JSON.parse(c.body) as { name: string }).name);
      expect(new Set(sent).size).toBe(sent.length);
      expect(sent.length).toBeLessThanOrEqual(executions);
    } finally {
      db.close();
    }

    const file = join(tmp.path, 'acme.jsonl');
    await runJson(['export', ...t, '--out', file], env);
    const verdict = await runSvc(['verify', file, '--public-key', publicKey, '--json'], env);
    expect(verdict.code, verdict.stdout).toBe(0);
    expect(JSON.parse(verdict.stdout).result).toMatch(/^pass/);
  }, 240_000);
});

function byReceiptTask(db: Database.Database, receiptId: string): string | undefined {
  return db
    .prepare("SELECT task_id FROM journal WHERE tenant_id = 'acme' AND receipt_id = ?")
    .pluck()
    .get(receiptId) as string | undefined;
}
