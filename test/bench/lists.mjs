// `svc receipts list --all --json` against fetching the same pages with a plain undici
// client in the same run, at two journal sizes: the ratio says what the CLI adds, the peak
// RSS at both sizes says whether its memory grows with the count (it should not).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildLog } from './evidence.mjs';
import { bin, dist, root, waitFor } from './harness.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The baseline, in its own process like the CLI: every page with undici, parsed, items counted. */
const FETCH_ALL = `
const { request } = require(${JSON.stringify(join(root, 'node_modules/undici'))});
(async () => {
  const [base, token, task] = process.argv.slice(1);
  let cursor; let count = 0;
  do {
    const q = new URLSearchParams({ task_id: task, limit: '200', ...(cursor ? { cursor } : {}) });
    const r = await request(base + '/v1/receipts?' + q, { headers: { authorization: 'Bearer ' + token } });
    if (r.statusCode !== 200) throw new Error('HTTP ' + r.statusCode);
    const page = await r.body.json();
    count += page.items.length;
    cursor = page.next_cursor;
  } while (cursor);
  console.log(count);
})();`;

/** Wall seconds and peak RSS (MiB) of one process, from /usr/bin/time. */
function timed(args, env) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', ...args], {
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const [s, kb] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { s, rss_mib: kb / 1024, stdout: r.stdout };
}

async function addTask(home) {
  const { SqliteStore } = await import(dist('src/store/sqlite/store.js'));
  const store = SqliteStore.open(join(home, 'svc.db'));
  const at = new Date().toISOString();
  await store.tasks.create({
    tenantId: 'default',
    id: 'bench-task',
    title: null,
    sponsorId: 'admin',
    status: 'active',
    parentId: null,
    rootId: 'bench-task',
    budgetMicros: 1n,
    reservedMicros: 0n,
    actors: [],
    createdAt: at,
    closedAt: null,
  });
  await store.close();
}

function measure(url, token, env, count, runs) {
  const plain = [];
  const cli = [];
  timed([process.execPath, '-e', FETCH_ALL, url, token, 'bench-task'], env); // warm the daemon
  for (let i = 0; i < runs; i++) {
    const p = timed([process.execPath, '-e', FETCH_ALL, url, token, 'bench-task'], env);
    if (Number(p.stdout.trim()) !== count)
      throw new Error(`undici saw ${p.stdout.trim()} receipts, not ${count}`);
    plain.push(p);
    const c = timed([process.execPath, bin, 'receipts', 'list', '--task', 'bench-task', '--all', '--json'], {
      ...env,
      SVC_ENDPOINT: url,
      SVC_TOKEN: token,
    });
    const doc = JSON.parse(c.stdout);
    if (doc.items.length !== count || doc.next_cursor !== null) {
      throw new Error(`svc listed ${doc.items.length} receipts, not ${count}`);
    }
    cli.push(c);
  }
  const plainS = median(plain.map((x) => x.s));
  const cliS = median(cli.map((x) => x.s));
  return {
    count,
    undici_s: plainS,
    cli_s: cliS,
    ratio: cliS / plainS,
    cli_peak_rss_mib: Math.max(...cli.map((x) => x.rss_mib)),
    undici_peak_rss_mib: Math.max(...plain.map((x) => x.rss_mib)),
  };
}

export async function listsBench(sizes = [5_000, 20_000], runs = Number(process.env.BENCH_RUNS ?? 3)) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-lists-'));
  const env = { ...process.env, SVC_HOME: home, NO_COLOR: '1' };
  let daemon;
  try {
    const init = JSON.parse(
      spawnSync(process.execPath, [bin, 'init', '--yes', '--json'], { env, encoding: 'utf8', cwd: root })
        .stdout,
    );
    await addTask(home);
    // Plain HTTP on both sides, so the ratio measures the client, not TLS.
    daemon = spawn(
      process.execPath,
      [bin, 'daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http'],
      {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const url = await waitFor(daemon, /listening on (\S+)/);
    const results = [];
    let built = 0;
    for (const size of sizes) {
      await buildLog(home, size - built);
      built = size;
      results.push(measure(url, init.admin_token, env, size, runs));
    }
    return results;
  } finally {
    daemon?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(home, { recursive: true, force: true });
  }
}
