// svc's allowed, durable POST /v1/action against the Cerbos PDP's POST /api/check/resources
// (audit log on) and a bare node:http JSON POST, in the same run, same machine, same 32
// connections, plain HTTP on every side; repeated BENCH_RUNS times so the figures come
// with their spread. Then svc alone: latency at half its own peak rate (paced evenly, open
// loop), and at one connection.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { cerbosCheck, installCerbos, startCerbos } from './cerbos.mjs';
import { bin, dist, load, provisionBench, sequential, startBare, waitFor } from './harness.mjs';
import { hostIdle } from './host-idle.mjs';
import { paced } from './paced.mjs';
import { cpuSince, mainThreadCpu, perDecisionUs } from './thread-cpu.mjs';

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** `{ median, min, max }` of one figure over the runs. */
export function spread(xs) {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
}

function post(body) {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    setupRequest: (r) => ({ ...r, body: body() }),
  };
}

/**
 * `baseline`: another built checkout of svc (`checkout()` of harness.mjs), or undefined. When
 * given, its daemon runs beside this one on a data dir of its own, and its allowed POST is
 * loaded in every round, interleaved with this one's: a before/after from one run.
 */
export async function peerComparison({ seconds, runs, baseline }) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-cmp-'));
  const env = { ...process.env, SVC_HOME: home };
  const { EXAMPLE_POLICY } = await import(dist('src/policy/example-policy.js'));
  const token = await provisionBench(
    home,
    env,
    { name: 'bench.read', custody: 'grant', actions: ['read'] },
    EXAMPLE_POLICY,
  );
  // The same request every time but its effect key: the example policy reads the amount,
  // the tier, the route, the actor's kind, roles and manager, all constant here.
  const decisionBody = (step) =>
    JSON.stringify({
      tenant_id: 'default',
      actor_id: 'bench-agent',
      capability: 'bench.read',
      action: 'read',
      task_id: 'bench',
      amount_usd: 0.01,
      effect_key_step: step,
      intent: 'read the notes of order 1042',
    });
  const baseHome = baseline && mkdtempSync(join(tmpdir(), 'svc-bench-base-'));
  const baseEnv = baseline && { ...process.env, SVC_HOME: baseHome };
  const baseToken =
    baseline &&
    (await provisionBench(
      baseHome,
      baseEnv,
      { name: 'bench.read', custody: 'grant', actions: ['read'] },
      EXAMPLE_POLICY,
      baseline,
    ));
  // svc's requests alone are counted: `n` is the decisions the run journaled.
  let n = 0;
  const svcBody = () => decisionBody(`s${n++}`);
  const svcRequest = post(svcBody);
  svcRequest.headers = { ...svcRequest.headers, authorization: `Bearer ${token}` };
  let c = 0;
  const cerbosRequest = post(() => cerbosCheck(c++));
  // The bare server reads the same body, on a counter of its own.
  let b = 0;
  const bareBody = () => decisionBody(`s${b++}`);
  const bareRequest = post(bareBody);

  let k = 0;
  const baseRequest = baseline && post(() => decisionBody(`b${k++}`));
  if (baseRequest) baseRequest.headers = { ...baseRequest.headers, authorization: `Bearer ${baseToken}` };

  const peer = installCerbos();
  const bare = startBare();
  const base =
    baseline &&
    spawn(
      process.execPath,
      [baseline.bin, 'daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http'],
      {
        env: baseEnv,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
  const daemon = spawn(
    process.execPath,
    [bin, 'daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http'],
    { env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let cerbos;
  try {
    const bareUrl = await waitFor(bare, /listening on (\S+)/);
    const svcUrl = `${await waitFor(daemon, /listening on (\S+)/)}/v1/action`;
    if ('bin' in peer) {
      try {
        cerbos = await startCerbos(peer.bin);
      } catch (err) {
        peer.skip = `the peer did not start: ${err.message}`;
      }
    }
    const cerbosUrl = cerbos ? `${cerbos.url}/api/check/resources` : undefined;
    const baseUrl = base && `${await waitFor(base, /listening on (\S+)/)}/v1/action`;
    const warm = Math.min(2, seconds);
    if (baseUrl) await load(baseUrl, { seconds: warm, requests: [baseRequest] });
    await load(bareUrl, { seconds: warm, requests: [bareRequest] });
    await load(svcUrl, { seconds: warm, requests: [svcRequest] });
    if (cerbosUrl) await load(cerbosUrl, { seconds: warm, requests: [cerbosRequest] });

    const rounds = [];
    for (let i = 0; i < runs; i++) {
      // Interleaved, so a neighbour's load on the shared machine falls on all three alike.
      const round = {};
      round.bare = await load(bareUrl, { seconds, requests: [bareRequest] });
      if (cerbosUrl) round.cerbos = await load(cerbosUrl, { seconds, requests: [cerbosRequest] });
      // The baseline goes before this build on odd rounds, after it on even ones: neither
      // always follows the same neighbour, so order does not favour one.
      const baseFirst = baseUrl !== undefined && i % 2 === 1;
      if (baseFirst) round.base = await load(baseUrl, { seconds, requests: [baseRequest] });
      const cpu = mainThreadCpu(daemon.pid);
      round.svc = await load(svcUrl, { seconds, requests: [svcRequest] });
      round.svcCpuUs = perDecisionUs(cpuSince(cpu, mainThreadCpu(daemon.pid)), round.svc.total);
      if (baseUrl && !baseFirst) round.base = await load(baseUrl, { seconds, requests: [baseRequest] });
      rounds.push(round);
    }
    const of = (who, what) => spread(rounds.map((r) => r[who][what]));
    const figures = (who) => ({ rps: of(who, 'rps'), p50_ms: of(who, 'p50_ms'), p99_ms: of(who, 'p99_ms') });
    const result = {
      runs,
      seconds,
      svc: figures('svc'),
      bare: figures('bare'),
      svc_over_bare: spread(rounds.map((r) => r.svc.rps / r.bare.rps)),
    };
    if (baseUrl) {
      result.baseline = { dir: baseline.dir, ...figures('base') };
      result.svc_over_baseline = spread(rounds.map((r) => r.svc.rps / r.base.rps));
    }
    if (cerbosUrl) {
      result.cerbos = figures('cerbos');
      result.svc_over_cerbos = spread(rounds.map((r) => r.svc.rps / r.cerbos.rps));
    } else {
      result.cerbos_skipped = peer.skip;
    }
    // svc alone: half of its own peak, paced evenly and open-loop (paced.mjs: a request that
    // waited for a connection counts from its due time), after one discarded second at that
    // rate to warm the generator; then one connection, one request at a time.
    const rate = Math.max(1, Math.floor(result.svc.rps.median / 2));
    const pacedRequest = { method: 'POST', headers: svcRequest.headers, body: svcBody };
    // The bare server under the same generator at the same rate and at one connection: the
    // floor this machine and the generator put under every latency figure.
    const half = [];
    const single = [];
    const bareHalf = [];
    const bareSingle = [];
    const barePaced = { method: 'POST', headers: bareRequest.headers, body: bareBody };
    for (let i = 0; i < runs; i++) {
      await paced(svcUrl, { rate, seconds: 1, request: pacedRequest });
      const cpu = mainThreadCpu(daemon.pid);
      const started = performance.now();
      const h = await paced(svcUrl, { rate, seconds, request: pacedRequest });
      const used = cpuSince(cpu, mainThreadCpu(daemon.pid));
      h.cpu_us = perDecisionUs(used, h.answered);
      h.busy = used === undefined ? undefined : used / ((performance.now() - started) / 1000);
      if (h.errors > 0) throw new Error(`svc at ${rate} req/s: ${h.errors} errors, first: ${h.first_error}`);
      half.push(h);
      single.push(await sequential(svcUrl, { seconds, request: { ...svcRequest, body: svcBody } }));
      bareHalf.push(await paced(bareUrl, { rate, seconds, request: barePaced }));
      bareSingle.push(await sequential(bareUrl, { seconds, request: barePaced }));
    }
    result.half_rate = rate;
    result.svc_half = {
      achieved_rps: spread(half.map((h) => h.achieved_rps)),
      p50_ms: spread(half.map((h) => h.p50_ms)),
      p90_ms: spread(half.map((h) => h.p90_ms)),
      p99_ms: spread(half.map((h) => h.p99_ms)),
      max_ms: spread(half.map((h) => h.max_ms)),
      lag_p99_ms: spread(half.map((h) => h.lag_p99_ms)),
    };
    // Where the latency goes at half the peak: the daemon's main thread (event loop, SQLite,
    // the decision) is the one queue every request passes through.
    if (half.every((h) => h.cpu_us !== undefined) && rounds.every((r) => r.svcCpuUs !== undefined)) {
      result.svc_main_thread = {
        peak_us: spread(rounds.map((r) => r.svcCpuUs)),
        half_us: spread(half.map((h) => h.cpu_us)),
        half_busy: spread(half.map((h) => h.busy)),
      };
    }
    result.svc_one = {
      rps: spread(single.map((h) => h.rps)),
      p50_ms: spread(single.map((h) => h.p50_ms)),
      p99_ms: spread(single.map((h) => h.p99_ms)),
    };
    result.bare_half = {
      p50_ms: spread(bareHalf.map((h) => h.p50_ms)),
      p99_ms: spread(bareHalf.map((h) => h.p99_ms)),
    };
    result.bare_one = { p50_ms: spread(bareSingle.map((h) => h.p50_ms)) };
    result.decisions = n;
    result.host_idle = hostIdle();
    return result;
  } finally {
    bare.kill('SIGTERM');
    daemon.kill('SIGTERM');
    base?.kill('SIGTERM');
    await cerbos?.stop();
    await new Promise((r) => setTimeout(r, 500));
    rmSync(home, { recursive: true, force: true });
    if (baseHome) rmSync(baseHome, { recursive: true, force: true });
  }
}
