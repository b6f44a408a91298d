// Brokered decision overhead: POST /v1/brokered (decide, journal, call the provider, journal
// its outcome) against calling the same downstream node:http server directly, in the same run.
// Throughput at 32 connections, and per-call latency at one connection (1 / rate).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, load, provisionBench, startBare, waitFor } from './harness.mjs';

export async function brokeredOverhead(seconds) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-brk-'));
  const env = { ...process.env, SVC_HOME: home, SVC_BENCH_TOKEN: 'bench-credential' };
  const token = await provisionBench(home, env, {
    name: 'bench.echo',
    custody: 'brokered',
    actions: ['write'],
    surfaceId: 'bench',
    operation: 'echo',
  });

  const provider = startBare();
  const daemons = [];
  let n = 0;
  const brokered = {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    setupRequest: (r) => ({
      ...r,
      body: JSON.stringify({
        tenant_id: 'default',
        actor_id: 'bench-agent',
        capability: 'bench.echo',
        action: 'write',
        task_id: 'bench',
        effect_key_step: `s${n++}`,
        params: { id: n },
      }),
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
    const daemon = spawn(
      process.execPath,
      [bin, 'daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http', '--integration-ops', ops],
      {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    daemons.push(daemon);
    const svcUrl = await waitFor(daemon, /listening on (\S+)/);
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
