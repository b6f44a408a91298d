// Benchmarks: every figure is a ratio against a baseline measured in the same run, on the
// same machine, so the numbers mean something on any hardware. Not part of `npm test`.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/run.js');
const seconds = Number(process.env.BENCH_SECONDS ?? 5);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function timeRuns(args, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}

function startup() {
  const runs = 15;
  timeRuns([bin, '--version'], 2); // warm the file cache
  const bare = timeRuns(['-e', '0'], runs);
  const svc = timeRuns([bin, '--version'], runs);
  return { bare_ms: bare, svc_ms: svc, ratio: svc / bare };
}

function waitFor(child, re) {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d) => {
      buf += d.toString();
      const m = re.exec(buf);
      if (m) resolve(m[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (c) => reject(new Error(`exited ${c}: ${buf}`)));
  });
}

async function load(url, headers) {
  const r = await autocannon({ url, connections: 32, pipelining: 1, duration: seconds, headers });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rps: r.requests.average, p50_ms: r.latency.p50, p99_ms: r.latency.p99 };
}

async function authenticatedThroughput() {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const env = { ...process.env, SVC_HOME: home };
  const init = JSON.parse(
    spawnSync(process.execPath, [bin, 'init', '--yes', '--json'], { env, encoding: 'utf8' }).stdout,
  );
  const bare = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:http').createServer((q, r) => { r.setHeader('content-type', 'application/json');
         r.end(JSON.stringify({ tenant_id: 'default', actor_id: 'admin', capabilities: [] })); });
       s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // Plain HTTP on both sides so the ratio measures the daemon's work, not TLS.
  const daemon = spawn(
    process.execPath,
    [bin, 'daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http'],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  daemon.stdout = { on() {} };
  try {
    const bareUrl = await waitFor(bare, /listening on (\S+)/);
    const svcUrl = await waitFor(daemon, /listening on (\S+)/);
    await load(`${bareUrl}/`, {}); // warm-up
    const ceiling = await load(`${bareUrl}/`, {});
    await load(`${svcUrl}/v1/capabilities`, { authorization: `Bearer ${init.admin_token}` });
    const svc = await load(`${svcUrl}/v1/capabilities`, { authorization: `Bearer ${init.admin_token}` });
    return { ceiling, svc, ratio: svc.rps / ceiling.rps };
  } finally {
    bare.kill('SIGTERM');
    daemon.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(home, { recursive: true, force: true });
  }
}

const s = startup();
console.log(
  `startup: svc --version ${s.svc_ms.toFixed(0)} ms, node -e 0 ${s.bare_ms.toFixed(0)} ms, ratio ${s.ratio.toFixed(2)}x`,
);
const t = await authenticatedThroughput();
console.log(
  `authenticated GET /v1/capabilities: ${t.svc.rps.toFixed(0)} req/s (p50 ${t.svc.p50_ms} ms, p99 ${t.svc.p99_ms} ms); ` +
    `bare node:http ${t.ceiling.rps.toFixed(0)} req/s; ratio ${t.ratio.toFixed(2)} of the ceiling`,
);
