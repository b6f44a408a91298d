// Benchmarks: every figure is a ratio against a baseline measured in the same run, on the
// same machine, so the numbers mean something on any hardware. Not part of `npm test`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tokenTiming } from './auth-timing.mjs';
import { brokeredOverhead } from './brokered.mjs';
import { CERBOS_VERSION } from './cerbos.mjs';
import { peerComparison } from './comparison.mjs';
import { decisionThroughput } from './decision.mjs';
import { bin, checkout, load, root, startBare, waitFor } from './harness.mjs';
import { evidenceBench } from './evidence.mjs';
import { describeHostIdle } from './host-idle.mjs';
import { sdkOverhead } from './sdk.mjs';
import { proofsBench } from './proofs.mjs';
import { replayBench } from './replay.mjs';
import { listsBench } from './lists.mjs';
import { consoleOverviewBench } from './console-overview.mjs';
import { metricsOverhead } from './metrics.mjs';
import { notifyBench } from './notify.mjs';
import { shadowBench } from './shadow.mjs';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const runs = Number(process.env.BENCH_RUNS ?? 3);
// `--record` appends this run's figures to docs/performance.md (test/bench/record.mjs).
const record = process.argv.slice(2).includes('--record');
const only = process.argv.slice(2).find((a) => a !== '--record');
const printed = [];
if (record) {
  const print = console.log;
  console.log = (...args) => {
    printed.push(args.join(' '));
    print(...args);
  };
}
const SECTIONS = [
  'startup',
  'policy',
  'compare',
  'cerbos',
  'auth',
  'auth-timing',
  'decision',
  'metrics',
  'brokered',
  'sdk',
  'evidence',
  'proofs',
  'lists',
  'console-overview',
  'notify',
  'shadow',
  'replicas',
  'replay',
];
if (only !== undefined && !SECTIONS.includes(only)) {
  console.error(`unknown benchmark ${JSON.stringify(only)}: expected one of ${SECTIONS.join(', ')}`);
  process.exit(2);
}
for (const [name, value] of [
  ['BENCH_SECONDS', seconds],
  ['BENCH_RUNS', runs],
]) {
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} must be a whole number of at least 1, got ${JSON.stringify(process.env[name])}`);
    process.exit(2);
  }
}
const fmt = (x, digits = 0) =>
  x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
/** A figure over the runs: its median and, in brackets, its spread. */
const mm = (s, digits = 0) => `${fmt(s.median, digits)} (${fmt(s.min, digits)}-${fmt(s.max, digits)})`;
const line = (f) => `${mm(f.rps)} req/s, p50 ${mm(f.p50_ms, 1)} ms, p99 ${mm(f.p99_ms, 1)} ms`;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function timeRuns(args, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}

function startup() {
  const runs = 15;
  timeRuns([bin, '--version'], 2); // warm the file cache
  const bare = timeRuns(['-e', '0'], runs);
  const svc = timeRuns([bin, '--version'], runs);
  return { bare_ms: bare, svc_ms: svc, ratio: svc / bare };
}

async function authenticatedThroughput() {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const env = { ...process.env, SVC_HOME: home };
  const init = JSON.parse(
    spawnSync(process.execPath, [bin, 'init', '--yes', '--json'], { env, encoding: 'utf8' }).stdout,
  );
  const bare = startBare();
  // Plain HTTP on both sides so the ratio measures the daemon's work, not TLS.
  const daemon = spawn(
    process.execPath,
    [bin, 'daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http'],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  try {
    const bareUrl = await waitFor(bare, /listening on (\S+)/);
    const svcUrl = await waitFor(daemon, /listening on (\S+)/);
    const headers = { authorization: `Bearer ${init.admin_token}` };
    await load(`${bareUrl}/`, { seconds: 2 });
    const ceiling = await load(`${bareUrl}/`, { seconds });
    await load(`${svcUrl}/v1/capabilities`, { seconds: 2, headers });
    const svc = await load(`${svcUrl}/v1/capabilities`, { seconds, headers });
    return { ceiling, svc, ratio: svc.rps / ceiling.rps };
  } finally {
    bare.kill('SIGTERM');
    daemon.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(home, { recursive: true, force: true });
  }
}

if (!only || only === 'startup') {
  const s = startup();
  console.log(
    `startup: svc --version ${s.svc_ms.toFixed(0)} ms, node -e 0 ${s.bare_ms.toFixed(0)} ms, ratio ${s.ratio.toFixed(2)}x (target 2.5x)`,
  );
}
if (!only || only === 'policy') {
  const { policyBench } = await import('./policy.mjs');
  const p = policyBench();
  const pct = (x) => `${((100 * x) / p.miss_us).toFixed(0)} %`;
  console.log(
    `policy step (example policy, one core, CPU time, median of 3): a repeated request ${p.cached_us.toFixed(1)} us (cache); ` +
      `a fresh amount every request ${p.fresh_us.toFixed(1)} us (cache ${p.stats.hits} hits, ${p.stats.misses} misses); ` +
      `a miss, the engine every time: ${p.miss_us.toFixed(1)} us, before the lean call ${p.before_miss_us.toFixed(1)} us ` +
      `(${(p.before_miss_us / p.miss_us).toFixed(2)}x). Where a miss goes: JavaScript around the engine ${p.outside_engine_us.toFixed(1)} us (${pct(p.outside_engine_us)}), ` +
      `crossing into the engine and building its entities and context ${p.crossing_us.toFixed(1)} us (${pct(p.crossing_us)}), ` +
      `evaluating the policies ${p.evaluation_us.toFixed(1)} us (${pct(p.evaluation_us)}); the full call alone ${p.engine_full_us.toFixed(1)} us`,
  );
  if (process.env.BENCH_JSON === '1') console.log(JSON.stringify({ policy: p }));
}
if (!only || only === 'compare' || only === 'cerbos') {
  // BENCH_BASELINE=DIR: another built checkout (e.g. `git worktree add DIR REV && cd DIR &&
  // npm ci && npm run build`) measured in the same rounds: before and after from one run.
  const baselineDir = process.env.BENCH_BASELINE;
  if (baselineDir !== undefined && !existsSync(join(baselineDir, 'dist/src/store/sqlite/store.js'))) {
    console.error(
      `BENCH_BASELINE must name a built checkout of svc (no dist/ in ${JSON.stringify(baselineDir)})`,
    );
    process.exit(2);
  }
  const baseline = baselineDir === undefined ? undefined : checkout(baselineDir);
  const r = await peerComparison({ seconds, runs, baseline });
  console.log(
    `svc against Cerbos ${CERBOS_VERSION} (audit log on) and a bare node:http JSON POST, 32 connections, ` +
      `${r.runs} run${r.runs === 1 ? '' : 's'} of ${r.seconds} s each, interleaved, median (min-max); ` +
      `svc: allowed POST /v1/action, durable (each decision fsynced to its journal before the answer); ` +
      `Cerbos: POST /api/check/resources, its local audit backend queues each entry and writes batches later, unsynced:`,
  );
  const cpu = (f) => (f.cpu_us ? `, main thread ${mm(f.cpu_us)} us CPU per decision` : '');
  console.log(`  repeat (the same request but its effect key; svc answers the policy from its cache):`);
  console.log(`    svc:    ${line(r.svc_repeat)}${cpu(r.svc_repeat)}`);
  if (r.cerbos_repeat) console.log(`    Cerbos: ${line(r.cerbos_repeat)}`);
  console.log(`  fresh (a different amount in every request, the same amounts on both sides):`);
  console.log(
    `    svc as shipped (a new amount under the limit is an interval hit of the cache): ${line(r.svc_fresh)}${cpu(r.svc_fresh)}`,
  );
  console.log(
    `    svc --no-policy-answer-cache (the engine evaluates every request): ${line(r.engine_fresh)}${cpu(r.engine_fresh)}`,
  );
  if (r.cerbos_fresh) console.log(`    Cerbos: ${line(r.cerbos_fresh)}`);
  if (!r.cerbos_repeat) console.log(`  Cerbos: not run: ${r.cerbos_skipped}`);
  console.log(`  bare node:http JSON POST: ${line(r.bare)}`);
  if (r.cerbos_repeat) {
    console.log(
      `  ratio svc/Cerbos: repeat ${mm(r.svc_repeat_over_cerbos, 2)} (at least 1.27); fresh ${mm(r.svc_fresh_over_cerbos, 2)} ` +
        `(at least 1.0, goal 1.5); fresh with the engine every time ${mm(r.engine_fresh_over_cerbos, 2)}`,
    );
  }
  console.log(
    `  ratio svc/bare: repeat ${mm(r.svc_repeat_over_bare, 2)}, fresh ${mm(r.svc_fresh_over_bare, 2)}, ` +
      `fresh with the engine every time ${mm(r.engine_fresh_over_bare, 2)}`,
  );
  if (r.baseline_dir) {
    const rev = spawnSync('git', ['-C', r.baseline_dir, 'describe', '--always', '--dirty'], {
      encoding: 'utf8',
    });
    console.log(
      `  ratio svc/baseline (${rev.stdout.trim() || r.baseline_dir}, same rounds): repeat ${mm(r.svc_repeat_over_baseline, 2)}, ` +
        `fresh ${mm(r.svc_fresh_over_baseline, 2)} (1.00: no change)`,
    );
  }
  const h = r.svc_paced;
  console.log(
    `  svc at ${fmt(r.paced_rate)} fresh decisions/s paced evenly over 32 connections, open loop (test/bench/paced.mjs): ` +
      `achieved ${mm(h.achieved_rps)}/s, p50 ${mm(h.p50_ms, 2)} ms, p99 ${mm(h.p99_ms, 2)} ms (target under 5 ms), ` +
      `max ${mm(h.max_ms, 1)} ms; the generator's send lag p99 ${mm(h.lag_p99_ms, 1)} ms` +
      (h.cpu_us
        ? `; main thread ${mm(h.cpu_us)} us CPU per decision, busy ${mm(h.busy, 2)} of the time`
        : '') +
      `; bare node:http paced the same: p50 ${mm(r.bare_paced.p50_ms, 2)} ms, p99 ${mm(r.bare_paced.p99_ms, 2)} ms`,
  );
  console.log(
    `  svc at one connection, fresh, one request at a time: p50 ${mm(r.svc_one.p50_ms, 2)} ms, ` +
      `p99 ${mm(r.svc_one.p99_ms, 1)} ms, ${mm(r.svc_one.rps)} req/s (bare node:http: p50 ${mm(r.bare_one.p50_ms, 2)} ms); ` +
      `${fmt(r.decisions)} decisions journaled`,
  );
  console.log(`  host: ${describeHostIdle(r.host_idle)}`);
  if (process.env.BENCH_JSON === '1') console.log(JSON.stringify({ compare: r }));
}
if (!only || only === 'auth') {
  const t = await authenticatedThroughput();
  console.log(
    `authenticated GET /v1/capabilities: ${t.svc.rps.toFixed(0)} req/s (p50 ${t.svc.p50_ms} ms, p99 ${t.svc.p99_ms} ms); ` +
      `bare node:http ${t.ceiling.rps.toFixed(0)} req/s; ratio ${t.ratio.toFixed(2)} of the ceiling`,
  );
}
if (!only || only === 'auth-timing') {
  const t = await tokenTiming();
  console.log(
    `token check, median of 10,000 each: unknown id ${t.unknown_id_us.toFixed(1)} us, known id with a wrong secret ` +
      `${t.known_wrong_secret_us.toFixed(1)} us (difference ${(t.known_wrong_secret_us - t.unknown_id_us).toFixed(1)} us)`,
  );
}
if (!only || only === 'decision') {
  const d = await decisionThroughput(seconds);
  console.log(
    `allowed POST /v1/action: ${d.peak.rps.toFixed(0)} decisions/s (p50 ${d.peak.p50_ms} ms, p99 ${d.peak.p99_ms} ms at peak); ` +
      `bare node:http POST ${d.ceiling.rps.toFixed(0)} req/s; ratio ${d.ratio.toFixed(2)} of the ceiling (target 0.25); ` +
      `at half the peak rate (${fmt(d.half.rate)} req/s paced evenly, open loop): p50 ${d.half.p50_ms.toFixed(1)} ms, ` +
      `p99 ${d.half.p99_ms.toFixed(1)} ms, max ${d.half.max_ms.toFixed(1)} ms; ${d.decisions} decisions journaled`,
  );
}
if (!only || only === 'replay') {
  const r = await replayBench(seconds, runs);
  console.log(
    `svc policy replay on one core: ${fmt(r.replay)} recorded decisions/s (median of ${runs} replays of ${fmt(r.replayed)} ` +
      `decisions, ${fmt(r.differing)} differing; read-only, nothing committed) against ${fmt(r.live)} live allowed ` +
      `POST /v1/action decisions/s (durable) in the same run, both answered through the compiled policy's cache; ` +
      `ratio ${r.ratio.toFixed(1)} (target at least 5)`,
  );
}
if (!only || only === 'metrics') {
  const m = await metricsOverhead(seconds, runs);
  console.log(
    `allowed POST /v1/action with --metrics-listen (scraped every second, ${m.scrapes} scrapes) against without, ` +
      `interleaved over ${runs} rounds: ${fmt(m.on)} against ${fmt(m.off)} decisions/s (medians); ratio ${m.ratio.toFixed(3)} ` +
      `(rounds ${m.ratios.map((r) => r.toFixed(3)).join(', ')}; target at least 0.97)`,
  );
}
if (!only || only === 'notify') {
  const { cost: c, limited: l, unlimited: u } = await notifyBench(seconds, runs);
  console.log(
    `refused POST /v1/action with two webhook destinations subscribed to decision.refused (each decision durable, ` +
      `its two deliveries staged in the same commit, fanned out and sent by the loop to two loopback receivers answering 204) ` +
      `against no destination, interleaved over ${runs} rounds: ${fmt(c.on)} against ${fmt(c.off)} decisions/s (medians); ` +
      `ratio ${c.ratio.toFixed(3)} (rounds ${c.ratios.map((r) => r.toFixed(3)).join(', ')}; target at least 0.9); ` +
      `receivers got ${c.received.map((n) => fmt(n)).join(' and ')} of ${fmt(c.refusals)} measured refusals and the warm-up, ` +
      `the outbox emptied before the next round (at most ${fmt(c.drainedAfterMs)} ms after a subscribed round)`,
  );
  if (c.onCpuUs !== undefined) {
    console.log(
      `notify cost on the daemon's main thread: ${c.onCpuUs.toFixed(0)} against ${c.offCpuUs.toFixed(0)} CPU µs per decision (medians); ` +
        `decisions per CPU second, subscribed against none: rounds ${c.cpuRatios.map((r) => r.toFixed(3)).join(', ')} ` +
        `(the subscribed side's CPU includes what its loop did during the round; not disturbed by other load on the machine)`,
    );
  }
  console.log(
    `notify drain: ${fmt(l.n)} events queued while the receiver was down, then drained at ${fmt(l.rate)} events/s ` +
      `to a receiver answering at most ${fmt(l.perSecond)}/s (drain/limit ${(l.rate / l.perSecond).toFixed(2)}); ` +
      `${fmt(u.rate)} events/s to one without a limit`,
  );
}
if (!only || only === 'shadow') {
  const s = await shadowBench(seconds, runs);
  console.log(
    `shadow policy: ${fmt(s.on)} allowed POST /v1/action decisions/s (durable) with a shadow policy set (every decision compared with the ` +
      `candidate after its commit, about half recorded as differences) against ${fmt(s.off)} without, 32 connections, ` +
      `${runs} interleaved rounds of ${seconds} s: ratio ${s.ratio.toFixed(2)} (target 0.85; median of the rounds' ratios; ` +
      `ratio of the medians ${(s.on / s.off).toFixed(2)}; rounds ` +
      `${s.ratios.map((r) => r.toFixed(2)).join(', ')}); the shadowed daemon compared ${fmt(s.compared)} decisions ` +
      `(the load generator counted ${fmt(s.decided)} replies in its windows, warm-up included), dropped ${fmt(s.dropped)}, ` +
      `recorded ${fmt(s.differing)} differences`,
  );
}
if (!only || only === 'brokered') {
  const b = await brokeredOverhead(seconds);
  console.log(
    `allowed POST /v1/brokered (decide, journal, call the provider, journal the outcome): ${b.peak.rps.toFixed(0)} req/s at 32 connections ` +
      `against ${b.directPeak.rps.toFixed(0)} req/s calling the provider directly, ratio ${b.throughputRatio.toFixed(2)}; ` +
      `one connection: ${b.brokeredMs.toFixed(2)} ms per brokered call against ${b.directMs.toFixed(2)} ms direct, ` +
      `${b.latencyRatio.toFixed(1)}x (${(b.brokeredMs - b.directMs).toFixed(2)} ms overhead)`,
  );
}
if (!only || only === 'sdk') {
  const k = await sdkOverhead(seconds);
  console.log(
    `allowed POST /v1/action through the TypeScript SDK: one caller ${k.sdkMs.toFixed(2)} ms per decision against ` +
      `${k.bareMs.toFixed(2)} ms with bare undici (${(k.sdkMs / k.bareMs).toFixed(2)}x); 32 callers ${k.sdk32.toFixed(0)} ` +
      `against ${k.bare32.toFixed(0)} decisions/s (ratio ${(k.sdk32 / k.bare32).toFixed(2)}); ${k.decisions} decisions`,
  );
}
if (!only || only === 'evidence') {
  const e = await evidenceBench(undefined, runs);
  console.log(
    `evidence, ${fmt(e.entries)} entries (${e.file_mb.toFixed(0)} MB export; journal built in ${e.build_s.toFixed(0)} s), ` +
      `median of ${e.runs} back-to-back runs: sha256sum ${e.sha256sum_s.toFixed(2)} s; ` +
      `svc export ${e.export_s.toFixed(1)} s, ${e.export_ratio.toFixed(1)}x sha256sum, peak RSS ${e.export_peak_rss_mib.toFixed(0)} MiB; ` +
      `svc-verify ${e.verify_s.toFixed(1)} s, ${e.verify_ratio.toFixed(1)}x sha256sum (target 10x), ` +
      `peak RSS ${e.verify_peak_rss_mib.toFixed(0)} MiB (target 128 MiB); ` +
      `export/verify ${e.export_over_verify.toFixed(2)} (target at most 1)`,
  );
}
if (!only || only === 'proofs') {
  const p = await proofsBench();
  console.log(
    `proofs, ${p.entries} entries (built in ${p.build_s.toFixed(0)} s): inclusion p50 ${p.inclusion_p50_ms.toFixed(2)} ms, p99 ${p.inclusion_p99_ms.toFixed(2)} ms; ` +
      `consistency p50 ${p.consistency_p50_ms.toFixed(2)} ms, p99 ${p.consistency_p99_ms.toFixed(2)} ms (target 10 ms); ` +
      `anchor with one witness, excluding the network wait: p50 ${p.anchor_local_p50_ms.toFixed(2)} ms, max ${p.anchor_local_max_ms.toFixed(2)} ms (target 50 ms); ` +
      `with it: p50 ${p.anchor_total_p50_ms.toFixed(2)} ms`,
  );
}
if (!only || only === 'lists') {
  for (const l of await listsBench()) {
    console.log(
      `svc receipts list --all --json, ${l.count} receipts: ${l.cli_s.toFixed(2)} s against ${l.undici_s.toFixed(2)} s ` +
        `fetching the same pages with undici, ratio ${l.ratio.toFixed(2)}x (target 2x); ` +
        `peak RSS svc ${l.cli_peak_rss_mib.toFixed(0)} MiB, undici ${l.undici_peak_rss_mib.toFixed(0)} MiB`,
    );
  }
}
if (!only || only === 'console-overview') {
  const c = await consoleOverviewBench();
  const line = (name, x) =>
    `${name} median ${x.median_ms.toFixed(1)} ms, p90 ${x.p90_ms.toFixed(1)} ms, first ${x.first_ms.toFixed(1)} ms`;
  console.log(
    `console overview, ${c.entries} journal entries (built in ${c.build_s.toFixed(0)} s; ` +
      `${c.last_24h.allowed + c.last_24h.refused + c.last_24h.deferred} decisions in the last 24 h, ${c.pending} pending approvals), ` +
      `sequential requests, nothing cached: ${line('GET /api/overview', c.overview)} (target 200 ms), ` +
      `${(c.overview.median_ms / c.session.median_ms).toFixed(1)}x GET /api/session (${c.session.median_ms.toFixed(1)} ms); ` +
      `${line('records, first page', c.records)}; ${line(`a search matching nothing (${c.search.scanned} records examined)`, c.search)}; ` +
      `${line('approval history', c.history)}`,
  );
}
// The PostgreSQL replicas scenario is its own script (runnable alone); run it when present.
const replicas = join(root, 'test/bench/replicas.mjs');
if ((!only || only === 'replicas') && existsSync(replicas)) {
  const r = spawnSync(process.execPath, [replicas], { stdio: 'inherit', env: process.env });
  if (r.status !== 0) console.log(`replicas: exited ${r.status ?? r.signal}`);
} else if (only === 'replicas') {
  console.log('replicas: test/bench/replicas.mjs is not in this tree');
}
if (record) {
  const { recordRun } = await import('./record.mjs');
  const row = await recordRun(printed.join('\n'));
  console.log(`recorded in docs/performance.md: ${row}`);
}
