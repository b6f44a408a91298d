// Allowed POST /v1/action decisions per second with one, two and three daemon replicas on
// one PostgreSQL database, and one daemon on SQLite, in the same run on the same machine.
// Every reply waits for its durable commit (PostgreSQL COMMIT with fsync on; SQLite
// synchronous=FULL). The load is spread evenly over the replicas with the same total
// number of connections in every configuration. Two scenarios: every request for one
// tenant, and requests spread over BENCH_TENANTS tenants (default 32) in turn; then one tenant
// again on SQLite and one replica with four times the connections, since a replica's rate for
// one tenant grows with the requests that gather into each batch, where SQLite's is set by
// its CPU (docs/postgres.md). The one-tenant pair of SQLite and one replica is measured
// BENCH_RUNS times (default 3), interleaved, and its ratio given as the median round's with
// the range; the two- and three-replica figures of that scenario (measured once, in the first
// round) are compared to the median round's. Beside the
// rates: CPU per decision of each daemon and of the database server (from /proc, when the
// bench started the server), and statements and commits per decision (pg_stat_statements,
// pg_stat_database). BENCH_JSON=1 prints the figures as JSON too.
//
// Runnable alone: `npm run build && node test/bench/replicas.mjs` (BENCH_SECONDS=3 for a
// short run). PostgreSQL: SVC_BENCH_POSTGRES=postgresql://user@host:port/db (a user that may
// create databases), else a private server is started in a temporary directory (Debian
// package postgresql; as root, the server runs as the postgres OS user) and removed after.
import { spawn, spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { bin, waitFor } from './harness.mjs';

const CONNECTIONS = 48;
/** The one-tenant scenario again with this many connections: what more waiting callers give each side. */
const MANY_CONNECTIONS = 4 * CONNECTIONS;
/** Tenants in the many-tenant scenario: enough that no one tenant's lock sets the pace. */
const TENANTS = Number(process.env.BENCH_TENANTS ?? 32);
/** Provisioning commands run at once (each is a short CLI process). */
const PROVISION_PARALLEL = 4;

function svcAsync(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args, '--json'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out))
        : reject(new Error(`svc ${args.join(' ')} exited ${code}: ${out} ${err}`)),
    );
  });
}

/**
 * One tenant as the load needs it: an agent with one capability under a permit-all policy and
 * a task that never runs dry, declared in one deployment document (`svc apply`). Returns the
 * agent's token.
 */
async function provisionTenant(home, env, tenant, create) {
  const t = ['--tenant', tenant];
  if (create) await svcAsync(['tenant', 'create', '--id', tenant], env);
  const doc = join(home, `${tenant}.json`);
  writeFileSync(
    doc,
    JSON.stringify({
      version: 1,
      tenant,
      actors: [
        { id: 'bench-admin', kind: 'human', roles: ['approver', 'manager'] },
        { id: 'bench-agent', kind: 'agent', manager: 'bench-admin' },
      ],
      capabilities: [{ name: 'bench.read', tier: 0, actions: ['read'] }],
      permissions: [{ actor: 'bench-agent', capability: 'bench.read' }],
      policy: { text: 'permit (principal, action, resource);\n' },
      tasks: [{ id: 'bench', sponsor: 'bench-admin', budget_usd: 1000000, actors: ['bench-agent'] }],
    }),
  );
  await svcAsync(['apply', '-f', doc], env);
  return (await svcAsync(['token', 'issue', ...t, '--actor', 'bench-agent'], env)).token;
}

/** `svc init` (tenant `default`), then `tenants` tenants ready for load: [{ tenant, token }]. */
export async function provision(home, env, tenants) {
  await svcAsync(['init', '--yes'], env);
  const names = ['default', ...Array.from({ length: tenants - 1 }, (_, i) => `bench-${i + 1}`)];
  const out = [];
  for (let i = 0; i < names.length; i += PROVISION_PARALLEL) {
    const slice = names.slice(i, i + PROVISION_PARALLEL);
    const tokens = await Promise.all(slice.map((n) => provisionTenant(home, env, n, n !== 'default')));
    slice.forEach((tenant, j) => out.push({ tenant, token: tokens[j] }));
  }
  return out;
}

export function startDaemon(env) {
  // BENCH_DAEMON_NODE_ARGS: node options for the daemons alone, such as --cpu-prof to profile them
  const nodeArgs = (process.env.BENCH_DAEMON_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [...nodeArgs, bin, 'daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http'],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  return { child, url: waitFor(child, /listening on (\S+)/) };
}

/**
 * Load every daemon at once, CONNECTIONS split evenly; each request goes to the next tenant
 * in turn (its token with it). With `affinity`, daemon i is sent only the tenants whose
 * place modulo the number of daemons is i, as a load balancer routing by tenant would.
 * Decisions/s summed over the daemons.
 */
export async function loadAll(urls, tenants, seconds, tag, affinity = false, connections = CONNECTIONS) {
  let n = 0;
  const requestTo = (i, mine = affinity ? tenants.filter((_, k) => k % urls.length === i) : tenants) => ({
    method: 'POST',
    setupRequest: (r) => {
      const { tenant, token } = mine[n % mine.length];
      return {
        ...r,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          tenant_id: tenant,
          actor_id: 'bench-agent',
          capability: 'bench.read',
          action: 'read',
          task_id: 'bench',
          effect_key_step: `${tag}-${n++}`,
        }),
      };
    },
  });
  const runs = await Promise.all(
    urls.map((url, i) =>
      autocannon({
        url: `${url}/v1/action`,
        connections: Math.max(1, Math.floor(connections / urls.length)),
        duration: seconds,
        requests: [requestTo(i)],
      }),
    ),
  );
  for (const r of runs) {
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${tag}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  }
  return {
    rps: runs.reduce((s, r) => s + r.requests.average, 0),
    decisions: runs.reduce((s, r) => s + r.requests.total, 0),
    p50_ms: Math.max(...runs.map((r) => r.latency.p50)),
    p99_ms: Math.max(...runs.map((r) => r.latency.p99)),
  };
}

/** CPU seconds (user and system) of process `pid` and its reaped children, from /proc; undefined without. */
function processCpu(pid, children = false) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = Number(f[11]) + Number(f[12]);
    return (children ? own + Number(f[13]) + Number(f[14]) : own) / 100;
  } catch {
    return undefined;
  }
}

/**
 * The database server's CPU seconds so far: the postmaster, its live backends and the ones it
 * has reaped. Undefined for a server this bench did not start.
 */
function serverCpu(server) {
  if (!server?.postmasterPid) return undefined;
  let total = processCpu(server.postmasterPid, true);
  if (total === undefined) return undefined;
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === server.postmasterPid) total += processCpu(Number(p)) ?? 0;
    } catch {
      // gone meanwhile: its CPU is in the postmaster's reaped children
    }
  }
  return total;
}

/** Statements executed and transactions committed on the database so far (pg_stat_statements when loaded). */
async function serverCounts(url) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const name = new URL(url).pathname.slice(1);
    const [x] = (
      await c.query('SELECT xact_commit::text AS commits FROM pg_stat_database WHERE datname = $1', [name])
    ).rows;
    let statements;
    try {
      const [s] = (
        await c.query(
          `SELECT coalesce(sum(calls), 0)::text AS calls FROM pg_stat_statements s
           JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`,
          [name],
        )
      ).rows;
      statements = Number(s.calls);
    } catch {
      statements = undefined;
    }
    return { commits: Number(x.commits), statements };
  } finally {
    await c.end();
  }
}

export async function measure(
  env,
  tenants,
  replicas,
  seconds,
  tag,
  server,
  affinity = false,
  connections = CONNECTIONS,
) {
  const daemons = Array.from({ length: replicas }, (_, i) =>
    startDaemon({ ...env, SVC_REPLICA_ID: `bench-${i}` }),
  );
  try {
    const urls = await Promise.all(daemons.map((d) => d.url));
    await loadAll(urls, tenants, 2, `${tag}-warm`, affinity, connections);
    // pg_stat_database is updated when a backend reports, at most every PGSTAT_MIN_INTERVAL (1 s)
    const counts = server && env.SVC_STORE ? await settledCounts(env.SVC_STORE) : undefined;
    const dbCpu = serverCpu(server);
    const daemonCpu = daemons.map((d) => processCpu(d.child.pid));
    const run = await loadAll(urls, tenants, seconds, tag, affinity, connections);
    const daemonUsed = daemons.map((d, i) => processCpu(d.child.pid) - daemonCpu[i]);
    const dbUsed = dbCpu === undefined ? undefined : serverCpu(server) - dbCpu;
    const after = counts ? await settledCounts(env.SVC_STORE) : undefined;
    const per = (x) => (x === undefined || Number.isNaN(x) ? undefined : x / run.decisions);
    return {
      ...run,
      replica_cpu_us: daemonUsed.map((u) => Math.round(per(u * 1e6))),
      db_cpu_us: dbUsed === undefined ? undefined : Math.round(per(dbUsed * 1e6)),
      statements: after?.statements === undefined ? undefined : per(after.statements - counts.statements),
      commits: after ? per(after.commits - counts.commits) : undefined,
    };
  } finally {
    for (const d of daemons) d.child.kill('SIGTERM');
    await Promise.all(
      daemons.map((d) => new Promise((r) => (d.child.exitCode !== null ? r() : d.child.on('exit', r)))),
    );
  }
}

/** Counts read after the statistics the backends hold have been reported. */
async function settledCounts(url) {
  await new Promise((r) => setTimeout(r, 1100));
  return serverCounts(url);
}

export async function replicasBench(seconds, runs = 3) {
  const root = mkdtempSync(join(tmpdir(), 'svc-bench-replicas-'));
  let server;
  try {
    server = process.env.SVC_BENCH_POSTGRES ? { url: process.env.SVC_BENCH_POSTGRES } : await startServer();
    const database = await createDatabase(server.url);
    const pgHome = join(root, 'pg-home');
    const pgEnv = { ...process.env, SVC_HOME: pgHome, SVC_STORE: database };
    const sqliteHome = join(root, 'sqlite-home');
    const sqliteEnv = { ...process.env, SVC_HOME: sqliteHome };
    delete sqliteEnv.SVC_STORE;
    const [pgTenants, sqliteTenants] = await Promise.all([
      provision(pgHome, pgEnv, TENANTS),
      provision(sqliteHome, sqliteEnv, TENANTS),
    ]);
    const scenarios = {};
    for (const [name, pick, affinity] of [
      ['one_tenant', (all) => all.slice(0, 1), false],
      [`${TENANTS}_tenants`, (all) => all, false],
      [`${TENANTS}_tenants_by_replica`, (all) => all, true],
    ]) {
      let sqlite = await measure(sqliteEnv, pick(sqliteTenants), 1, seconds, `sqlite-${name}`);
      const postgres = {};
      for (const n of [1, 2, 3]) {
        postgres[n] = await measure(pgEnv, pick(pgTenants), n, seconds, `pg${n}-${name}`, server, affinity);
      }
      let rounds;
      if (name === 'one_tenant' && runs > 1) {
        // The check of one replica against SQLite: a single 5 s pair moves by a fifth from run
        // to run on a shared host, so the pair is measured again, interleaved, and the ratio
        // reported is the median round's, with the range beside it.
        rounds = [{ sqlite, postgres: postgres[1] }];
        for (let i = 1; i < runs; i++) {
          const s = await measure(sqliteEnv, pick(sqliteTenants), 1, seconds, `sqlite-${name}-${i}`);
          const p = await measure(pgEnv, pick(pgTenants), 1, seconds, `pg1-${name}-${i}`, server);
          rounds.push({ sqlite: s, postgres: p });
        }
        rounds.sort((a, b) => a.postgres.rps / a.sqlite.rps - b.postgres.rps / b.sqlite.rps);
        const mid = rounds[Math.floor(rounds.length / 2)];
        sqlite = mid.sqlite;
        postgres[1] = mid.postgres;
      }
      scenarios[name] = {
        sqlite,
        postgres,
        ratio_to_sqlite: Object.fromEntries(
          Object.entries(postgres).map(([n, r]) => [n, r.rps / sqlite.rps]),
        ),
        ratio_to_one_replica: Object.fromEntries(
          Object.entries(postgres).map(([n, r]) => [n, r.rps / postgres[1].rps]),
        ),
        ...(rounds ? { one_replica_rounds: rounds.map((r) => r.postgres.rps / r.sqlite.rps) } : {}),
      };
    }
    // One tenant with many callers waiting: SQLite and one replica only.
    const sqlite = await measure(
      sqliteEnv,
      sqliteTenants.slice(0, 1),
      1,
      seconds,
      'sqlite-many',
      undefined,
      false,
      MANY_CONNECTIONS,
    );
    const one = await measure(
      pgEnv,
      pgTenants.slice(0, 1),
      1,
      seconds,
      'pg1-many',
      server,
      false,
      MANY_CONNECTIONS,
    );
    scenarios[`one_tenant_${MANY_CONNECTIONS}_connections`] = {
      connections: MANY_CONNECTIONS,
      sqlite,
      postgres: { 1: one },
      ratio_to_sqlite: { 1: one.rps / sqlite.rps },
      ratio_to_one_replica: { 1: 1 },
    };
    return { connections: CONNECTIONS, tenants: TENANTS, ...scenarios };
  } finally {
    if (server?.stop) server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

export async function createDatabase(url) {
  const name = `svc_bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A private server as the test helper starts one: loopback only, a port from the OS, fsync on. */
export async function startServer() {
  // Its own temporary directory: the server's OS user must be able to reach it.
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-pg-'));
  const debian = '/usr/lib/postgresql';
  const version = existsSync(debian)
    ? readdirSync(debian)
        .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))[0]
    : undefined;
  if (!version)
    throw new Error('no PostgreSQL server binaries: set SVC_BENCH_POSTGRES or install postgresql');
  const binDir = join(debian, version, 'bin');
  const as = [];
  if (process.getuid?.() === 0) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
    as.push('runuser', '-u', 'postgres', '--');
  }
  const run = (cmd, args) => {
    const argv = [...as, join(binDir, cmd), ...args];
    const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd}: ${r.stdout}${r.stderr}`);
  };
  const data = join(dir, 'data');
  run('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth-host=trust',
    '--auth-local=trust',
    '-E',
    'UTF8',
    '--no-locale',
  ]);
  const port = await new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const opts = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=on -c max_connections=200 -c shared_preload_libraries=pg_stat_statements`;
  run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-o', opts, 'start']);
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  // per database, so the bench's own database sees it (template1 is what CREATE DATABASE copies)
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await admin.end();
  const template = new pg.Client({ connectionString: url.replace(/\/postgres$/, '/template1') });
  await template.connect();
  await template.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await template.end();
  return {
    url,
    postmasterPid: Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    stop: () => {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The run as lines to read: per scenario, SQLite and each replica count with their costs per decision. */
export function describe(r) {
  const f = (x, d = 0) =>
    x === undefined
      ? 'n/a'
      : x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const lines = [
    `replicas: allowed POST /v1/action decisions, ${r.connections} connections spread evenly over the daemons, ` +
      'every reply after its durable commit (PostgreSQL COMMIT with fsync on, SQLite synchronous=FULL), ' +
      'each request a new effect key (nothing answered from a cache); CPU in µs per decision',
  ];
  for (const [name, s] of Object.entries(r).filter(([, v]) => v?.sqlite)) {
    lines.push(
      `  ${name.replace('_tenants_by_replica', ' tenants, each sent to one replica (routed by tenant)').replaceAll('_', ' ')}${s.connections ? '' : `, ${r.connections} connections`}:`,
    );
    lines.push(
      `    SQLite, one daemon: ${f(s.sqlite.rps)}/s, p50 ${s.sqlite.p50_ms} ms, p99 ${s.sqlite.p99_ms} ms, daemon CPU ${f(s.sqlite.replica_cpu_us[0])}`,
    );
    if (s.one_replica_rounds) {
      const rs = s.one_replica_rounds;
      lines.push(
        `    one replica against SQLite, ${rs.length} interleaved rounds: median ${f(rs[Math.floor(rs.length / 2)], 2)} ` +
          `(${f(rs[0], 2)} to ${f(rs[rs.length - 1], 2)}); the SQLite and 1-replica lines below are the median round's, ` +
          "the 2- and 3-replica lines the first round's, their ratios taken to the median round",
      );
    }
    for (const [n, p] of Object.entries(s.postgres)) {
      lines.push(
        `    PostgreSQL, ${n} replica${n === '1' ? '' : 's'}: ${f(p.rps)}/s (${f(s.ratio_to_sqlite[n], 2)} of SQLite, ` +
          `${f(s.ratio_to_one_replica[n], 2)} of one replica), p50 ${p.p50_ms} ms, p99 ${p.p99_ms} ms, ` +
          `replica CPU ${p.replica_cpu_us.map((u) => f(u)).join(' + ')}, database CPU ${f(p.db_cpu_us)}, ` +
          `statements ${f(p.statements, 2)}, commits ${f(p.commits, 3)} per decision`,
      );
    }
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const result = await replicasBench(seconds, Number(process.env.BENCH_RUNS ?? 3));
  console.log(describe(result));
  if (process.env.BENCH_JSON) console.log(JSON.stringify(result, null, 2));
}
