// The console's landing page at a large journal: GET /api/overview against a journal of
// 1,000,000 entries, half of them in the last 24 hours, next to GET /api/session (the
// console's cheapest authenticated route) in the same run. Also the Records page's first page,
// a search that matches nothing (the bounded scan at its worst) and the approval history.
// Target: the overview under 200 ms (median of sequential requests, nothing cached between
// them: every request reads the store again).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { bin, dist, waitFor } from './harness.mjs';

const BATCH = 10_000;
const DAY_MS = 86_400_000;
const CODES = ['budget_exceeded', 'not_permitted', 'policy_denied', 'task_closed', 'unknown_capability'];
const TASKS = 2_000;
const DECIDED_APPROVALS = 20_000;
const PENDING_APPROVALS = 40;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];

/**
 * `entries` journal records over the last 48 hours, appended through the store's own journal
 * writer (the real schema, chain, Merkle nodes and activity trigger) in transactions of
 * 10,000: decisions (allowed, refused with one of five codes, deferred), approvals and access
 * steps. Tasks and approvals are rows of the real schema, inserted in one transaction.
 */
async function build(home, entries, now) {
  const { SqliteStore } = await import(dist('src/store/sqlite/store.js'));
  const { JournalWriter } = await import(dist('src/store/sqlite/journal.js'));
  const { DataDir } = await import(dist('src/store/data-dir.js'));
  const { Keyring } = await import(dist('src/store/keyring.js'));
  const store = SqliteStore.open(join(home, 'svc.db'));
  const journal = new JournalWriter(store.db);
  const start = now - 2 * DAY_MS;
  const step = (2 * DAY_MS) / entries;
  let pool = Buffer.alloc(0);
  let used = 0;
  const id = (p) => `${p}_${pool.toString('hex', used, (used += 16))}`;
  for (let first = 1; first <= entries; first += BATCH) {
    pool = randomBytes(16 * 3 * BATCH);
    used = 0;
    store.db.transaction(() => {
      for (let i = first; i < Math.min(first + BATCH, entries + 1); i++) {
        const at = new Date(start + i * step).toISOString();
        const receiptId = id('rcp');
        const intentId = id('int');
        const kind = i % 20 === 0 ? 'approval' : i % 20 === 1 ? 'access' : 'decision';
        const outcome =
          kind === 'approval'
            ? 'approved'
            : kind === 'access'
              ? 'requested'
              : i % 9 === 0
                ? 'refused'
                : i % 13 === 0
                  ? 'deferred'
                  : 'allowed';
        const allowed = outcome === 'allowed' || outcome === 'approved';
        journal.append(
          {
            tenantId: 'default',
            kind,
            receiptId,
            taskId: `task-${i % TASKS}`,
            intentId,
            actorId: `agent-${i % 13}`,
            capability: i % 3 === 0 ? 'crm.contacts.write' : 'crm.contacts.read',
            tier: i % 4,
            allowed,
            grantId: outcome === 'allowed' ? id('grt') : '',
            amountMicros: outcome === 'allowed' ? BigInt(1 + (i % 5_000_000)) : 0n,
            occurredAt: at,
            record: {
              v: 1,
              kind,
              intent_id: intentId,
              receipt_id: receiptId,
              intent: `sync contact ${i}`,
              outcome,
              code: outcome === 'refused' ? CODES[i % CODES.length] : null,
            },
          },
          at,
        );
      }
    })();
  }
  const iso = (t) => new Date(t).toISOString();
  store.db.transaction(() => {
    const task = store.db.prepare(
      `INSERT INTO tasks (tenant_id, id, sponsor_id, status, root_id, budget_micros, reserved_micros, created_at)
       VALUES ('default', ?, 'admin', 'active', ?, ?, ?, ?)`,
    );
    for (let t = 0; t < TASKS; t++) {
      task.run(`task-${t}`, `task-${t}`, 100_000_000, (t * 7919) % 100_000_000, iso(start));
    }
    const approval = store.db.prepare(
      `INSERT INTO approvals (tenant_id, id, intent_id, task_id, step, capability, action, requester_id, amount_micros,
         request_digest, status, decided_by, decided_at, channel, expires_at, created_at)
       VALUES ('default', ?, ?, ?, ?, 'payments.send', 'write', 'agent-1', 25000000, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (let a = 0; a < DECIDED_APPROVALS + PENDING_APPROVALS; a++) {
      const pending = a >= DECIDED_APPROVALS;
      const created = start + (a * 2 * DAY_MS) / (DECIDED_APPROVALS + PENDING_APPROVALS);
      approval.run(
        `apr_${String(a).padStart(8, '0')}`,
        `int_a${a}`,
        `task-${a % TASKS}`,
        `pay-${a}`,
        '0'.repeat(64),
        pending ? 'pending' : a % 3 === 0 ? 'denied' : 'consumed',
        pending ? null : 'admin',
        pending ? null : iso(created + 60_000),
        pending ? null : ['console', 'api', 'chat'][a % 3],
        iso(now + DAY_MS),
        iso(created),
      );
    }
  })();
  const keyring = new Keyring(new DataDir(home), store);
  await store.anchors.signCurrent('default', await keyring.signer('default'), iso(now - 60_000));
  await store.close();
}

async function timedGet(url, cookie) {
  const t0 = process.hrtime.bigint();
  const r = await request(url, { headers: { cookie } });
  const body = await r.body.text();
  if (r.statusCode !== 200) throw new Error(`GET ${url}: ${r.statusCode} ${body}`);
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, body };
}

export async function consoleOverviewBench(
  entries = Number(process.env.BENCH_ENTRIES ?? 1_000_000),
  requests = Number(process.env.BENCH_REQUESTS ?? 21),
) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-overview-'));
  const env = { ...process.env, SVC_HOME: home, NO_COLOR: '1' };
  let consoleProc;
  try {
    const init = spawnSync(process.execPath, [bin, 'init', '--yes', '--json'], { env, encoding: 'utf8' });
    if (init.status !== 0) throw new Error(`svc init: ${init.stderr}`);
    const token = JSON.parse(init.stdout).admin_token;
    const t0 = process.hrtime.bigint();
    await build(home, entries, Date.now());
    const builtS = Number(process.hrtime.bigint() - t0) / 1e9;
    consoleProc = spawn(
      process.execPath,
      [bin, 'console', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http'],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const base = await waitFor(consoleProc, /listening on (\S+)/);
    const signIn = await request(`${base}/api/session`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    await signIn.body.text();
    const setCookie = [signIn.headers['set-cookie']].flat()[0];
    if (signIn.statusCode !== 200 || !setCookie) throw new Error(`sign-in: ${signIn.statusCode}`);
    const cookie = setCookie.split(';')[0];
    const series = async (path) => {
      const first = await timedGet(`${base}${path}`, cookie);
      const ms = [];
      for (let i = 0; i < requests; i++) ms.push((await timedGet(`${base}${path}`, cookie)).ms);
      return { first_ms: first.ms, median_ms: median(ms), p90_ms: p90(ms), json: JSON.parse(first.body) };
    };
    const session = await series('/api/session');
    const overview = await series('/api/overview');
    const o = overview.json;
    const records = await series('/api/records?limit=50');
    const search = await series('/api/records?limit=50&q=no-such-text-anywhere');
    const history = await series('/api/approvals?status=history&limit=20');
    return {
      entries,
      build_s: builtS,
      last_24h: o.decisions.last_24h,
      pending: o.approvals.pending,
      session,
      overview,
      records,
      search: { ...search, scanned: search.json.scanned },
      history,
    };
  } finally {
    consoleProc?.kill('SIGTERM');
    rmSync(home, { recursive: true, force: true });
  }
}

// Runnable alone: `node test/bench/console-overview.mjs` (after `npm run build`).
if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await consoleOverviewBench();
  const figures = (x) => ({ first_ms: x.first_ms, median_ms: x.median_ms, p90_ms: x.p90_ms });
  console.log(
    JSON.stringify(
      {
        ...r,
        session: figures(r.session),
        overview: figures(r.overview),
        records: figures(r.records),
        search: { ...figures(r.search), scanned: r.search.scanned },
        history: figures(r.history),
      },
      null,
      2,
    ),
  );
}
