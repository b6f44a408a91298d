// Allowed POST /v1/action decisions per second with a durable journal (synchronous=FULL),
// against a bare node:http server answering the same POST in the same run, plus latency at
// half the measured peak rate, paced evenly and open-loop (paced.mjs).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, load, provisionBench, startBare, waitFor } from './harness.mjs';
import { paced } from './paced.mjs';

export async function decisionThroughput(seconds) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-dec-'));
  const env = { ...process.env, SVC_HOME: home };
  const token = await provisionBench(home, env, { name: 'bench.read', custody: 'grant', actions: ['read'] });

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
    const svcUrl = await waitFor(daemon, /listening on (\S+)/);
    await load(bareUrl, { seconds: 2, requests: [request] });
    const ceiling = await load(bareUrl, { seconds, requests: [request] });
    await load(`${svcUrl}/v1/action`, { seconds: 2, requests: [request] });
    const peak = await load(`${svcUrl}/v1/action`, { seconds, requests: [request] });
    const rate = Math.max(1, Math.floor(peak.rps / 2));
    const pacedRequest = { method: 'POST', headers: request.headers, body };
    await paced(`${svcUrl}/v1/action`, { rate, seconds: 1, request: pacedRequest });
    const half = await paced(`${svcUrl}/v1/action`, { rate, seconds, request: pacedRequest });
    if (half.errors > 0)
      throw new Error(`svc at ${rate} req/s: ${half.errors} errors, first: ${half.first_error}`);
    return { ceiling, peak, half, ratio: peak.rps / ceiling.rps, decisions: n };
  } finally {
    bare.kill('SIGTERM');
    daemon.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    rmSync(home, { recursive: true, force: true });
  }
}
