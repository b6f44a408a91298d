// Brokered decision overhead: POST /v1/brokered (decide, journal, call the provider, journal
// its outcome) against calling the same downstream node:http server directly, in the same run.
// Throughput at 32 connections, and per-call latency at one connection (1 / rate).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, dist, load, startBare, waitFor } from './harness.mjs';

export async function brokeredOverhead(seconds) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-brk-'));
  const env = { ...process.env, SVC_HOME: home, SVC_BENCH_TOKEN: 'bench-credential' };
  spawnSync(process.execPath, [bin, 'init', '--yes', '--json'], { env, encoding: 'utf8' });
  const { SqliteStore } = await import(dist('src/store/sqlite/store.js'));
  const { issueToken } = await import(dist('src/provisioning/token.js'));
  const store = SqliteStore.open(join(home, 'svc.db'));
  const at = new Date().toISOString();
  await store.actors.add({ tenantId: 'default', id: 'bench-agent', kind: 'agent', roles: [], managerId: 'admin', certSubject: null, displayName: null, createdAt: at });
  await store.capabilities.put({
    tenantId: 'default', name: 'bench.echo', tier: 0, irreversible: false, custody: 'brokered', actions: ['write'], costMicros: 1n,
    requestable: false, approvers: [], owners: [], surfaceId: 'bench', operation: 'echo', createdAt: at, updatedAt: at,
  });
  await store.permissions.grant({ tenantId: 'default', actorId: 'bench-agent', capability: 'bench.echo', grantedAt: at });
  await store.policies.set('default', 'permit (principal, action, resource);', at);
  await store.tasks.create({
    tenantId: 'default', id: 'bench', title: null, sponsorId: 'admin', status: 'active', parentId: null, rootId: 'bench',
    budgetMicros: 10n ** 18n, reservedMicros: 0n, actors: [], createdAt: at, closedAt: null,
  });
  const { token } = await issueToken(store, { tenantId: 'default', actorId: 'bench-agent', ttlMs: 86_400_000, now: new Date() });
  await store.close();

  const provider = startBare();
  const daemons = [];
  let n = 0;
  const brokered = {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    setupRequest: (r) => ({
      ...r,
      body: JSON.stringify({ tenant_id: 'default', actor_id: 'bench-agent', capability: 'bench.echo', action: 'write', task_id: 'bench', effect_key_step: `s${n++}`, params: { id: n } }),
    }),
  };
  // The direct call sends what the connector sends: the params as JSON, with the credential.
  const direct = {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench-credential' },
    setupRequest: (r) => ({ ...r, body: JSON.stringify({ id: n++ }) }),
  };
  try {
    const providerUrl = await waitFor(provider, /listening on (\S+)/);
    const ops = join(home, 'ops.yaml');
    writeFileSync(
      ops,
      `surfaces:\n  - id: bench\n    adapter: http\n    base_url: ${providerUrl}\n    credential_ref: env:SVC_BENCH_TOKEN\n    auth: { type: bearer }\n    operations:\n      echo: { method: POST, path: /echo, effect_id: /n }\n`,
    );
    const daemon = spawn(process.execPath, [bin, 'daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http', '--integration-ops', ops], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    daemons.push(daemon);
    const svcUrl = await waitFor(daemon, /listening on (\S+)/); daemon.stderr.on('data', (d) => process.stderr.write('DAEMON: ' + d)); daemon.on('exit', (c, s) => console.error('DAEMON EXIT', c, s));
    await load(`${providerUrl}/echo`, { seconds: 2, requests: [direct] });
    const directPeak = await load(`${providerUrl}/echo`, { seconds, requests: [direct] });
    const directOne = await load(`${providerUrl}/echo`, { seconds, requests: [direct], connections: 1 });
    await load(`${svcUrl}/v1/brokered`, { seconds: 2, requests: [brokered] });
    const peak = await load(`${svcUrl}/v1/brokered`, { seconds, requests: [brokered] });
    const one = await load(`${svcUrl}/v1/brokered`, { seconds, requests: [brokered], connections: 1 });
    return {
      directPeak,
      peak,
      throughputRatio: peak.rps / directPeak.rps,
      directMs: 1000 / directOne.rps,
      brokeredMs: 1000 / one.rps,
      latencyRatio: directOne.rps / one.rps,
      calls: n,
    };
  } finally {
    provider.kill('SIGTERM');
    for (const d of daemons) d.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    rmSync(home, { recursive: true, force: true });
  }
}
