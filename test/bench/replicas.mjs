// Allowed POST /v1/action decisions per second with one, two and three daemon replicas on
// one PostgreSQL database, and one daemon on SQLite, in the same run on the same machine.
// Every reply waits for its durable commit (PostgreSQL COMMIT with fsync on; SQLite
// synchronous=FULL). The load is spread evenly over the replicas with the same total
// number of connections in every configuration.
//
// Runnable alone: `npm run build && node test/bench/replicas.mjs` (BENCH_SECONDS=3 for a
// short run). PostgreSQL: SVC_BENCH_POSTGRES=postgresql://user@host:port/db (a user that may
// create databases), else a private server is started in a temporary directory (Debian
// package postgresql; as root, the server runs as the postgres OS user) and removed after.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { bin, waitFor } from './harness.mjs';

const CONNECTIONS = 48;

function svc(args, env) {
  const r = spawnSync(process.execPath, [bin, ...args, '--json'], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.status}: ${r.stdout} ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** Tenant `default` (from init), an agent with one capability under a permit-all policy, a task that never runs dry. */
function provision(home, env) {
  svc(['init', '--yes'], env);
  const t = ['--tenant', 'default'];
  svc(['actor', 'add', ...t, '--id', 'bench-agent', '--kind', 'agent', '--manager', 'admin'], env);
  svc(['capability', 'register', ...t, '--name', 'bench.read', '--actions', 'read', '--tier', '0'], env);
  svc(['permission', 'grant', ...t, '--actor', 'bench-agent', '--capability', 'bench.read'], env);
  const policy = join(home, 'policy.cedar');
  writeFileSync(policy, 'permit (principal, action, resource);\n');
  svc(['policy', 'set', ...t, '--file', policy], env);
  svc(
    [
      'task',
      'create',
      ...t,
      '--id',
      'bench',
      '--sponsor',
      'admin',
      '--budget-usd',
      '1000000',
      '--actor',
      'bench-agent',
    ],
    env,
  );
  return svc(['token', 'issue', ...t, '--actor', 'bench-agent'], env).token;
}

function startDaemon(env) {
  const child = spawn(
    process.execPath,
    [bin, 'daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http'],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  return { child, url: waitFor(child, /listening on (\S+)/) };
}

/** Load every daemon at once, CONNECTIONS split evenly; decisions/s summed over them. */
async function loadAll(urls, token, seconds, tag) {
  let n = 0;
  const request = {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    setupRequest: (r) => ({
      ...r,
      body: JSON.stringify({
        tenant_id: 'default',
        actor_id: 'bench-agent',
        capability: 'bench.read',
        action: 'read',
        task_id: 'bench',
        effect_key_step: `${tag}-${n++}`,
      }),
    }),
  };
  const runs = await Promise.all(
    urls.map((url) =>
      autocannon({
        url: `${url}/v1/action`,
        connections: Math.max(1, Math.floor(CONNECTIONS / urls.length)),
        duration: seconds,
        requests: [request],
      }),
    ),
  );
  for (const r of runs) {
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${tag}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  }
  return {
    rps: runs.reduce((s, r) => s + r.requests.average, 0),
    p50_ms: Math.max(...runs.map((r) => r.latency.p50)),
    p99_ms: Math.max(...runs.map((r) => r.latency.p99)),
  };
}

async function measure(env, token, replicas, seconds, tag) {
  const daemons = Array.from({ length: replicas }, (_, i) =>
    startDaemon({ ...env, SVC_REPLICA_ID: `bench-${i}` }),
  );
  try {
    const urls = await Promise.all(daemons.map((d) => d.url));
    await loadAll(urls, token, 2, `${tag}-warm`);
    return await loadAll(urls, token, seconds, tag);
  } finally {
    for (const d of daemons) d.child.kill('SIGTERM');
    await Promise.all(
      daemons.map((d) => new Promise((r) => (d.child.exitCode !== null ? r() : d.child.on('exit', r)))),
    );
  }
}

export async function replicasBench(seconds) {
  const root = mkdtempSync(join(tmpdir(), 'svc-bench-replicas-'));
  let server;
  try {
    server = process.env.SVC_BENCH_POSTGRES ? { url: process.env.SVC_BENCH_POSTGRES } : await startServer();
    const database = await createDatabase(server.url);
    const pgHome = join(root, 'pg-home');
    const pgEnv = { ...process.env, SVC_HOME: pgHome, SVC_STORE: database };
    const pgToken = provision(pgHome, pgEnv);
    const sqliteHome = join(root, 'sqlite-home');
    const sqliteEnv = { ...process.env, SVC_HOME: sqliteHome };
    delete sqliteEnv.SVC_STORE;
    const sqliteToken = provision(sqliteHome, sqliteEnv);

    const sqlite = await measure(sqliteEnv, sqliteToken, 1, seconds, 'sqlite');
    const postgres = {};
    for (const n of [1, 2, 3]) postgres[n] = await measure(pgEnv, pgToken, n, seconds, `pg${n}`);
    return {
      connections: CONNECTIONS,
      sqlite,
      postgres,
      ratio_to_sqlite: Object.fromEntries(Object.entries(postgres).map(([n, r]) => [n, r.rps / sqlite.rps])),
    };
  } finally {
    if (server?.stop) server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

async function createDatabase(url) {
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
async function startServer() {
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
  const opts = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=on -c max_connections=200`;
  run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-o', opts, 'start']);
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  console.log(JSON.stringify(await replicasBench(seconds), null, 2));
}
