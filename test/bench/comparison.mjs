// svc's allowed, durable POST /v1/action against the Cerbos PDP's POST /api/check/resources
// (audit log on) and a bare node:http JSON POST, in the same run, same machine, same 32
// connections, plain HTTP on every side, interleaved round by round and repeated BENCH_RUNS
// times so the figures come with their spread. Two workloads, with the same rules and the
// same amounts on both sides:
// - repeat: the same request every time but its effect key (what the policy reads never
//   changes, so svc answers the policy step from its answer cache);
// - fresh: a different amount in every request (the example policy reads the amount). svc
//   runs it twice: as it ships (the answer cache keys an amount the policy only compares
//   with constants by its interval, so a new amount under the limit is a cache hit) and a
//   second daemon with --no-policy-answer-cache, where the engine evaluates every request.
// Then latency at a fixed realistic load: 1,000 fresh decisions a second, paced evenly
// (open loop), beside bare node:http paced the same way; and at one connection.
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

/** The realistic load the latency figures are taken at, in decisions a second. */
export const PACED_RATE = 1_000;

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
/**
 * The fresh workload's amount for request `n`, in micro-dollars: a different one every time
 * for the first 999 million requests (7919 is prime to the modulus), all under the example
 * policy's 1000 USD limit, so every request is allowed on both sides.
 */
export function freshMicros(n) {
  return 10_000 + ((n * 7919) % 999_000_000);
}

/** The same amount as svc's `amount_usd`: an exact decimal of at most six places. */
export function usdOf(micros) {
  return Number(`${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`);
}

const decisionBody = (step, amountUsd) =>
  JSON.stringify({
    tenant_id: 'default',
    actor_id: 'bench-agent',
    capability: 'bench.read',
    action: 'read',
    task_id: 'bench',
    amount_usd: amountUsd,
    effect_key_step: step,
    intent: 'read the notes of order 1042',
  });

function svcDaemon(build, env, extra = []) {
  return spawn(
    process.execPath,
    [build.bin, 'daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http', ...extra],
    { env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
}

/** A provisioned data dir of `build` and its running daemon: `{ home, token, child }`. */
async function svcSide(EXAMPLE_POLICY, build, extra) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-cmp-'));
  const env = { ...process.env, SVC_HOME: home };
  const token = await provisionBench(
    home,
    env,
    { name: 'bench.read', custody: 'grant', actions: ['read'] },
    EXAMPLE_POLICY,
    build,
  );
  return { home, token, child: svcDaemon(build, env, extra) };
}

/** Requests of one workload to one svc daemon, each with an effect key of its own. */
function svcWorkload(token, prefix, amountOf) {
  let n = 0;
  const body = () => {
    const i = n++;
    return decisionBody(`${prefix}${i}`, amountOf(i));
  };
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  return {
    count: () => n,
    autocannon: { method: 'POST', headers, setupRequest: (r) => ({ ...r, body: body() }) },
    raw: { method: 'POST', headers, body },
  };
}

/**
 * `baseline`: another built checkout of svc (`checkout()` of harness.mjs), or undefined. When
 * given, its daemon runs beside this one on a data dir of its own, and both workloads are
 * loaded on it in every round, interleaved with this one's: a before/after from one run.
 */
export async function peerComparison({ seconds, runs, baseline }) {
  const { EXAMPLE_POLICY } = await import(dist('src/policy/example-policy.js'));
  const self = { bin, dist };
  const sides = {
    svc: await svcSide(EXAMPLE_POLICY, self, []),
    engine: await svcSide(EXAMPLE_POLICY, self, ['--no-policy-answer-cache']),
    ...(baseline ? { base: await svcSide(EXAMPLE_POLICY, baseline, []) } : {}),
  };
  const repeatUsd = () => 0.01;
  const freshUsd = (i) => usdOf(freshMicros(i));
  const work = {
    svc_repeat: svcWorkload(sides.svc.token, 'r', repeatUsd),
    svc_fresh: svcWorkload(sides.svc.token, 'f', freshUsd),
    engine_fresh: svcWorkload(sides.engine.token, 'e', freshUsd),
    ...(baseline
      ? {
          base_repeat: svcWorkload(sides.base.token, 'r', repeatUsd),
          base_fresh: svcWorkload(sides.base.token, 'f', freshUsd),
        }
      : {}),
  };
  let c = 0;
  const cerbosRepeat = post(() => cerbosCheck(c++));
  let cf = 0;
  const cerbosFresh = post(() => {
    const i = cf++;
    return cerbosCheck(i, freshMicros(i));
  });
  // The bare server reads a body of the same size, on a counter of its own.
  let b = 0;
  const bareBody = () => decisionBody(`s${b++}`, 0.01);
  const bareRequest = post(bareBody);

  const peer = installCerbos();
  const bare = startBare();
  let cerbos;
  try {
    const bareUrl = await waitFor(bare, /listening on (\S+)/);
    const urls = {};
    for (const [name, side] of Object.entries(sides)) {
      urls[name] = `${await waitFor(side.child, /listening on (\S+)/)}/v1/action`;
    }
    if ('bin' in peer) {
      try {
        cerbos = await startCerbos(peer.bin);
      } catch (err) {
        peer.skip = `the peer did not start: ${err.message}`;
      }
    }
    const cerbosUrl = cerbos ? `${cerbos.url}/api/check/resources` : undefined;
    const urlOf = (name) => urls[name.split('_')[0]];
    const warm = Math.min(2, seconds);
    await load(bareUrl, { seconds: warm, requests: [bareRequest] });
    for (const [name, w] of Object.entries(work)) {
      await load(urlOf(name), { seconds: warm, requests: [w.autocannon] });
    }
    if (cerbosUrl) {
      await load(cerbosUrl, { seconds: warm, requests: [cerbosRepeat] });
      await load(cerbosUrl, { seconds: warm, requests: [cerbosFresh] });
    }

    const rounds = [];
    for (let i = 0; i < runs; i++) {
      // Interleaved, so a neighbour's load on the shared machine falls on every side alike;
      // the baseline goes before this build on odd rounds, after it on even ones.
      const round = {};
      const svcRun = async (name) => {
        const pid = sides[name.split('_')[0]].child.pid;
        const cpu = mainThreadCpu(pid);
        round[name] = await load(urlOf(name), { seconds, requests: [work[name].autocannon] });
        round[name].cpu_us = perDecisionUs(cpuSince(cpu, mainThreadCpu(pid)), round[name].total);
      };
      round.bare = await load(bareUrl, { seconds, requests: [bareRequest] });
      for (const kind of ['repeat', 'fresh']) {
        if (cerbosUrl) {
          round[`cerbos_${kind}`] = await load(cerbosUrl, {
            seconds,
            requests: [kind === 'repeat' ? cerbosRepeat : cerbosFresh],
          });
        }
        const baseFirst = baseline !== undefined && i % 2 === 1;
        if (baseFirst) await svcRun(`base_${kind}`);
        await svcRun(`svc_${kind}`);
        if (kind === 'fresh') await svcRun('engine_fresh');
        if (baseline !== undefined && !baseFirst) await svcRun(`base_${kind}`);
      }
      rounds.push(round);
    }
    const of = (who, what) => spread(rounds.map((r) => r[who][what]));
    const ratio = (a, b) => spread(rounds.map((r) => r[a].rps / r[b].rps));
    const figures = (who) => ({
      rps: of(who, 'rps'),
      p50_ms: of(who, 'p50_ms'),
      p99_ms: of(who, 'p99_ms'),
      ...(rounds.every((r) => r[who].cpu_us !== undefined) ? { cpu_us: of(who, 'cpu_us') } : {}),
    });
    const result = { runs, seconds, bare: figures('bare') };
    for (const name of Object.keys(work)) result[name] = figures(name);
    for (const name of ['svc_repeat', 'svc_fresh', 'engine_fresh']) {
      result[`${name}_over_bare`] = ratio(name, 'bare');
    }
    if (cerbosUrl) {
      result.cerbos_repeat = figures('cerbos_repeat');
      result.cerbos_fresh = figures('cerbos_fresh');
      result.svc_repeat_over_cerbos = ratio('svc_repeat', 'cerbos_repeat');
      result.svc_fresh_over_cerbos = ratio('svc_fresh', 'cerbos_fresh');
      result.engine_fresh_over_cerbos = ratio('engine_fresh', 'cerbos_fresh');
    } else {
      result.cerbos_skipped = peer.skip;
    }
    if (baseline) {
      result.baseline_dir = baseline.dir;
      result.svc_repeat_over_baseline = ratio('svc_repeat', 'base_repeat');
      result.svc_fresh_over_baseline = ratio('svc_fresh', 'base_fresh');
    }

    // A realistic load: 1,000 fresh decisions a second, paced evenly and open-loop
    // (paced.mjs: a request that waited for a connection counts from its due time), after one
    // discarded second to warm the generator; bare node:http paced the same way is the floor
    // the machine and the generator put under every figure. Then one connection.
    const rate = PACED_RATE;
    const fresh = work.svc_fresh.raw;
    const barePaced = { method: 'POST', headers: { 'content-type': 'application/json' }, body: bareBody };
    const svcPaced = [];
    const barePacedRuns = [];
    const single = [];
    const bareSingle = [];
    for (let i = 0; i < runs; i++) {
      await paced(urls.svc, { rate, seconds: 1, request: fresh });
      const cpu = mainThreadCpu(sides.svc.child.pid);
      const started = performance.now();
      const h = await paced(urls.svc, { rate, seconds, request: fresh });
      const used = cpuSince(cpu, mainThreadCpu(sides.svc.child.pid));
      h.cpu_us = perDecisionUs(used, h.answered);
      h.busy = used === undefined ? undefined : used / ((performance.now() - started) / 1000);
      if (h.errors > 0) throw new Error(`svc at ${rate} req/s: ${h.errors} errors, first: ${h.first_error}`);
      svcPaced.push(h);
      barePacedRuns.push(await paced(bareUrl, { rate, seconds, request: barePaced }));
      single.push(await sequential(urls.svc, { seconds, request: fresh }));
      bareSingle.push(await sequential(bareUrl, { seconds, request: barePaced }));
    }
    const q = (xs, k) => spread(xs.map((h) => h[k]));
    result.paced_rate = rate;
    result.svc_paced = {
      achieved_rps: q(svcPaced, 'achieved_rps'),
      p50_ms: q(svcPaced, 'p50_ms'),
      p99_ms: q(svcPaced, 'p99_ms'),
      max_ms: q(svcPaced, 'max_ms'),
      lag_p99_ms: q(svcPaced, 'lag_p99_ms'),
      ...(svcPaced.every((h) => h.cpu_us !== undefined)
        ? { cpu_us: q(svcPaced, 'cpu_us'), busy: q(svcPaced, 'busy') }
        : {}),
    };
    result.bare_paced = { p50_ms: q(barePacedRuns, 'p50_ms'), p99_ms: q(barePacedRuns, 'p99_ms') };
    result.svc_one = { rps: q(single, 'rps'), p50_ms: q(single, 'p50_ms'), p99_ms: q(single, 'p99_ms') };
    result.bare_one = { p50_ms: q(bareSingle, 'p50_ms') };
    result.decisions = Object.values(work).reduce((sum, w) => sum + w.count(), 0);
    result.host_idle = hostIdle();
    return result;
  } finally {
    bare.kill('SIGTERM');
    for (const side of Object.values(sides)) side.child.kill('SIGTERM');
    await cerbos?.stop();
    await new Promise((r) => setTimeout(r, 500));
    for (const side of Object.values(sides)) rmSync(side.home, { recursive: true, force: true });
  }
}
