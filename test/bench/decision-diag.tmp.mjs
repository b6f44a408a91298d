// Allowed POST /v1/action decisions per second with a durable journal (synchronous=FULL),
// against a bare node:http server answering the same POST in the same run, plus latency at
// half the measured peak rate.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, dist, load, startBare, waitFor } from './harness.mjs';

export async function decisionThroughput(seconds) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-dec-'));
  const env = { ...process.env, SVC_HOME: home };
  spawnSync(process.execPath, [bin, 'init', '--yes', '--json'], { env, encoding: 'utf8' });
  const { SqliteStore } = await import(dist('src/store/sqlite/store.js'));
  const { issueToken } = await import(dist('src/provisioning/token.js'));
  const store = SqliteStore.open(join(home, 'svc.db'));
  const at = new Date().toISOString();
  await store.actors.add({
    tenantId: 'default',
    id: 'bench-agent',
    kind: 'agent',
    roles: [],
    managerId: 'admin',
    certSubject: null,
    displayName: null,
    createdAt: at,
  });
  await store.capabilities.put({
    tenantId: 'default',
    name: 'bench.read',
    tier: 0,
    irreversible: false,
    custody: 'grant',
    actions: ['read'],
    costMicros: 1n,
    requestable: false,
    approvers: [],
    owners: [],
    surfaceId: null,
    operation: null,
    createdAt: at,
    updatedAt: at,
  });
  await store.permissions.grant({
    tenantId: 'default',
    actorId: 'bench-agent',
    capability: 'bench.read',
    grantedAt: at,
  });
  await store.policies.set('default', 'permit (principal, action, resource);', at);
  await store.tasks.create({
    tenantId: 'default',
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
    tenantId: 'default',
    actorId: 'bench-agent',
    ttlMs: 86_400_000,
    now: new Date(),
  });
  await store.close();

  const bare = startBare();
  const daemon = spawn(
    process.execPath,
    [bin, 'daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http'],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let n = 0;
  const body = () =>
    JSON.stringify({
      tenant_id: 'default',
      actor_id: 'bench-agent',
      capability: 'bench.read',
      action: 'read',
      task_id: 'bench',
      effect_key_step: `s${n++}`,
    });
  const request = {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    setupRequest: (r) => ({ ...r, body: body() }),
  };
  try {
    const bareUrl = await waitFor(bare, /listening on (\S+)/);
    const svcUrl = await waitFor(daemon, /listening on (\S+)/); daemon.stderr.on('data', (d) => process.stderr.write('DAEMON: ' + d)); daemon.on('exit', (c, s) => console.error('DAEMON EXIT', c, s));
    await load(bareUrl, { seconds: 2, requests: [request] });
    const ceiling = await load(bareUrl, { seconds, requests: [request] });
    await load(`${svcUrl}/v1/action`, { seconds: 2, requests: [request] });
    const peak = await load(`${svcUrl}/v1/action`, { seconds, requests: [request] });
    const half = await load(`${svcUrl}/v1/action`, {
      seconds,
      requests: [request],
      rate: Math.max(1, Math.floor(peak.rps / 2)),
    });
    return { ceiling, peak, half, ratio: peak.rps / ceiling.rps, decisions: n };
  } finally {
    bare.kill('SIGTERM');
    daemon.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    rmSync(home, { recursive: true, force: true });
  }
}
