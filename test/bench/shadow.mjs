// Shadow policy: what evaluating every live decision against a candidate as well costs.
//
// Allowed POST /v1/action decisions per second (32 connections, durable journal) on two
// daemons set up alike (permit-all policy, amounts 0 to 99 USD in turn), one with a shadow
// policy set that forbids amounts over 50 USD (so about half of its decisions differ: each is
// queued after its commit, evaluated against the compiled candidate and recorded as a
// difference in a batched write), the other with none (nothing queued, nothing written).
// Rounds are interleaved, the order alternating, and the ratio is the median of the rounds'
// ratios. After each of its rounds the shadowed daemon's report is read: decisions compared,
// decisions dropped (a full queue: the ratio would then flatter the shadow, so it is printed).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { bin, provisionBench, waitFor } from './harness.mjs';

const CAPABILITY = { name: 'bench.write', custody: 'grant', actions: ['write'] };
const PERMIT_ALL = 'permit (principal, action, resource);';
const CANDIDATE = `${PERMIT_ALL}
@id("refund-limit-50")
forbid (principal, action, resource) when { context.amount_micros > 50000000 };
`;

function svc(args, env) {
  const r = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`svc ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return r.stdout;
}

async function side(shadowed) {
  const home = mkdtempSync(join(tmpdir(), `svc-bench-shadow-${shadowed ? 'on' : 'off'}-`));
  const env = { ...process.env, SVC_HOME: home };
  const token = await provisionBench(home, env, CAPABILITY, PERMIT_ALL);
  if (shadowed) {
    const file = join(home, 'candidate.cedar');
    writeFileSync(file, CANDIDATE);
    svc(['policy', 'shadow', 'set', '--tenant', 'default', '--file', file, '--json'], env);
  }
  const child = spawn(
    process.execPath,
    [bin, 'daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http'],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const url = await waitFor(child, /listening on (\S+)/);
  let n = 0;
  const request = {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    setupRequest: (r) => ({
      ...r,
      body: JSON.stringify({
        tenant_id: 'default',
        actor_id: 'bench-agent',
        capability: 'bench.write',
        action: 'write',
        task_id: 'bench',
        effect_key_step: `s${n}`,
        amount_usd: n++ % 100,
      }),
    }),
  };
  const run = async (seconds) => {
    const r = await autocannon({
      url: `${url}/v1/action`,
      connections: 32,
      duration: seconds,
      requests: [request],
    });
    if (r.errors > 0 || r.non2xx > 0)
      throw new Error(`allowed decisions expected: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return { rps: r.requests.average, total: r.requests.total };
  };
  const report = () =>
    shadowed
      ? JSON.parse(svc(['policy', 'shadow', 'report', '--tenant', 'default', '--json'], env))
      : undefined;
  return {
    run,
    warm: () => run(2),
    report,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('close', r));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function shadowBench(seconds, runs) {
  const on = await side(true);
  const off = await side(false);
  try {
    let decided = (await on.warm()).total;
    await off.warm();
    const ratios = [];
    const onRps = [];
    const offRps = [];
    for (let i = 0; i < runs; i++) {
      const order = i % 2 === 0 ? [on, off] : [off, on];
      const results = [];
      for (const s of order) results.push(await s.run(seconds));
      const [withShadow, without] = order[0] === on ? results : [results[1], results[0]];
      onRps.push(withShadow.rps);
      offRps.push(without.rps);
      decided += withShadow.total;
      ratios.push(withShadow.rps / without.rps);
    }
    // The queue drains within a batch or two of the last reply; the daemon stops after it.
    await new Promise((r) => setTimeout(r, 1000));
    const report = on.report();
    return {
      on: median(onRps),
      off: median(offRps),
      ratio: median(ratios),
      ratios,
      decided,
      compared: report.evaluated,
      dropped: report.dropped,
      differing: report.differing,
    };
  } finally {
    await on.stop();
    await off.stop();
  }
}
