// SDK overhead: allowed decisions through the TypeScript SDK (identity, typed outcome)
// against the same POST /v1/action sent with bare undici, to the same daemon in the same
// run; one connection (per-call latency) and 32 concurrent callers (throughput).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { bin, dist, provisionBench, waitFor } from './harness.mjs';

async function drive(seconds, callers, once) {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (Date.now() < until) {
        await once();
        done++;
      }
    }),
  );
  return done / seconds;
}

export async function sdkOverhead(seconds) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-sdk-'));
  const env = { ...process.env, SVC_HOME: home };
  const token = await provisionBench(home, env, { name: 'bench.read', custody: 'grant', actions: ['read'] });
  const daemon = spawn(
    process.execPath,
    [bin, 'daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http'],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const { SvcClient } = await import(dist('src/sdk/index.js'));
  const agent = new Agent();
  let n = 0;
  const ask = () => ({
    capability: 'bench.read',
    action: 'read',
    task_id: 'bench',
    effect_key_step: `s${n++}`,
  });
  try {
    const url = await waitFor(daemon, /listening on (\S+)/);
    const sdk = new SvcClient({ endpoint: url, token });
    const viaSdk = async () => {
      const out = await sdk.action(ask());
      if (out.kind !== 'allowed') throw new Error(`sdk: ${out.kind}`);
    };
    const bare = async () => {
      const res = await request(`${url}/v1/action`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ tenant_id: 'default', actor_id: 'bench-agent', ...ask() }),
        dispatcher: agent,
      });
      await res.body.json();
      if (res.statusCode !== 200) throw new Error(`bare: ${res.statusCode}`);
    };
    await drive(1, 4, bare);
    await drive(1, 4, viaSdk);
    const bare1 = await drive(seconds, 1, bare);
    const sdk1 = await drive(seconds, 1, viaSdk);
    const bare32 = await drive(seconds, 32, bare);
    const sdk32 = await drive(seconds, 32, viaSdk);
    await sdk.close();
    return { bareMs: 1000 / bare1, sdkMs: 1000 / sdk1, bare32, sdk32, decisions: n };
  } finally {
    await agent.close();
    daemon.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    rmSync(home, { recursive: true, force: true });
  }
}
