// `svc policy replay` on one core against live decisions in the same run: the daemon takes
// allowed POST /v1/action decisions (durable, synchronous=FULL) for `seconds` at its peak;
// then, in this one process (one thread), every one of those recorded decisions is replayed
// against a candidate that reads the amount, from the data dir's database opened read-only.
// Replay needs no commit: it reads the recorded inputs and evaluates the candidate. Both sides
// answer the policy as the daemon does, through the compiled set's cache of requests it has
// already told apart (authorization-cache.ts): the live side with the live policy, the replay
// with the candidate.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, dist, load, provisionBench, waitFor } from './harness.mjs';

const { openRecordedDecisions } = await import(dist('src/store/open.js'));
const { avoidJsToWasmInliningCrash } = await import(dist('src/daemon/v8-workaround.js'));
const { replayPolicy } = await import(dist('src/provisioning/policy-replay.js'));

const LIVE = 'permit (principal, action, resource) when { context.amount_micros <= 1000000000 };';
/** Tightens the limit to 5 USD: refunds above it would be refused. */
const CANDIDATE = `${LIVE}
@id("limit-5")
forbid (principal, action, resource) when { context.amount_micros > 5000000 };`;

export async function replayBench(seconds, runs) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-replay-'));
  const env = { ...process.env, SVC_HOME: home };
  const token = await provisionBench(
    home,
    env,
    { name: 'bench.refund', custody: 'grant', actions: ['refund'] },
    LIVE,
  );
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
      capability: 'bench.refund',
      action: 'refund',
      task_id: 'bench',
      effect_key_step: `s${n}`,
      // 1 000 distinct amounts, 0.01 to 10.00 USD
      amount_usd: ((n++ % 1000) + 1) / 100,
    });
  const request = {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    setupRequest: (r) => ({ ...r, body: body() }),
  };
  try {
    const url = await waitFor(daemon, /listening on (\S+)/);
    await load(`${url}/v1/action`, { seconds: 2, requests: [request] });
    const live = await load(`${url}/v1/action`, { seconds, requests: [request] });
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('exit', r));
    const file = join(home, 'svc.db');
    // as `svc policy replay` does: the replay loop is as hot on the policy engine as the daemon
    avoidJsToWasmInliningCrash();
    const replays = [];
    let result;
    for (let i = 0; i < runs; i++) {
      const recorded = await openRecordedDecisions(file);
      const t0 = process.hrtime.bigint();
      try {
        result = await replayPolicy(recorded, {
          tenantId: 'default',
          text: CANDIDATE,
          source: 'candidate.cedar',
          range: {},
        });
      } finally {
        await recorded.close();
      }
      const s = Number(process.hrtime.bigint() - t0) / 1e9;
      replays.push(result.counts.replayed / s);
    }
    replays.sort((a, b) => a - b);
    const replayRate = replays[Math.floor(replays.length / 2)];
    return {
      live: live.rps,
      replay: replayRate,
      replays,
      ratio: replayRate / live.rps,
      replayed: result.counts.replayed,
      differing: result.report.differing,
      dbBytes: statSync(file).size,
    };
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(home, { recursive: true, force: true });
  }
}
