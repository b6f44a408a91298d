// What the benchmarks share: where the built CLI is, a bare node:http baseline, and a load run.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { RawConnection, requestBytes } from './raw-http.mjs';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** A built checkout of svc: its CLI and its compiled modules. */
export function checkout(dir) {
  return { dir, bin: join(dir, 'bin/run.js'), dist: (p) => pathToFileURL(join(dir, 'dist', p)).href };
}
const self = checkout(root);
export const bin = self.bin;
export const dist = self.dist;

/** The ceiling: node:http answering every request with a small JSON body, nothing else. */
export function startBare() {
  return spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:http').createServer((q, r) => { let b = ''; q.on('data', (d) => (b += d)); q.on('end', () => {
         r.setHeader('content-type', 'application/json'); r.end(JSON.stringify({ decision: 'allowed', n: b.length })); }); });
       s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

export { waitFor } from './wait-for.mjs';

/**
 * autocannon, closed-loop: as fast as `connections` connections go. (Not for a latency at a
 * given rate: autocannon's `overallRate` sends each second's quota in a burst; paced.mjs paces.)
 */
export async function load(url, { seconds, headers = {}, requests, connections = 32 }) {
  const r = await autocannon({
    url,
    connections,
    duration: seconds,
    headers,
    ...(requests ? { requests } : {}),
  });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rps: r.requests.average, total: r.requests.total, p50_ms: r.latency.p50, p99_ms: r.latency.p99 };
}

/**
 * A data dir with tenant `default`, agent `bench-agent` holding one capability under
 * `policy` (permit-all unless given), and task `bench` with a budget that never runs out,
 * written by `build` (this checkout unless another is named). Returns the agent's token.
 */
export async function provisionBench(
  home,
  env,
  capability,
  policy = 'permit (principal, action, resource);',
  build = self,
) {
  spawnSync(process.execPath, [build.bin, 'init', '--yes', '--json'], { env, encoding: 'utf8' });
  const { SqliteStore } = await import(build.dist('src/store/sqlite/store.js'));
  const { issueToken } = await import(build.dist('src/provisioning/token.js'));
  const store = SqliteStore.open(join(home, 'svc.db'));
  const at = new Date().toISOString();
  const tenantId = 'default';
  await store.actors.add({
    tenantId,
    id: 'bench-agent',
    kind: 'agent',
    roles: [],
    managerId: 'admin',
    certSubject: null,
    displayName: null,
    createdAt: at,
  });
  await store.capabilities.put({
    tenantId,
    tier: 0,
    irreversible: false,
    costMicros: 1n,
    requestable: false,
    approvers: [],
    owners: [],
    surfaceId: null,
    operation: null,
    createdAt: at,
    updatedAt: at,
    ...capability,
  });
  await store.permissions.grant({
    tenantId,
    actorId: 'bench-agent',
    capability: capability.name,
    grantedAt: at,
  });
  await store.policies.set(tenantId, policy, at);
  await store.tasks.create({
    tenantId,
    id: 'bench',
    title: null,
    sponsorId: 'admin',
    status: 'active',
    parentId: null,
    rootId: 'bench',
    budgetMicros: 10n ** 18n,
    reservedMicros: 0n,
    actors: [],
    createdAt: at,
    closedAt: null,
  });
  const { token } = await issueToken(store, {
    tenantId,
    actorId: 'bench-agent',
    ttlMs: 86_400_000,
    now: new Date(),
  });
  await store.close();
  return token;
}

/**
 * One connection, one request at a time, for `seconds`: each request timed here to the
 * microsecond (autocannon's histogram counts whole milliseconds, too coarse for a p50 under
 * one), with the lean client of raw-http.mjs so the figure is the server's, not the client's.
 * `request` is `{ method, headers, body() }`.
 */
export async function sequential(url, { seconds, request }) {
  const conn = await RawConnection.open(url);
  const times = [];
  const end = Date.now() + seconds * 1000;
  try {
    while (Date.now() < end) {
      const bytes = requestBytes(url, request, request.body());
      const t0 = process.hrtime.bigint();
      const status = await conn.send(bytes);
      if (status < 200 || status > 299) throw new Error(`${url}: HTTP ${status}`);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  } finally {
    conn.close();
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { rps: times.length / seconds, p50_ms: at(0.5), p99_ms: at(0.99) };
}
