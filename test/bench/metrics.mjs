// Allowed POST /v1/action decisions per second with --metrics-listen against without it,
// interleaved round by round (the order alternates, so position on a shared host favours
// neither) and scraped once a second during the metrics rounds, as Prometheus would.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, load, provisionBench, waitFor } from './harness.mjs';

async function benchDaemon(metrics) {
  const home = mkdtempSync(join(tmpdir(), `svc-bench-metrics-${metrics ? 'on' : 'off'}-`));
  const env = { ...process.env, SVC_HOME: home };
  const token = await provisionBench(home, env, { name: 'bench.read', custody: 'grant', actions: ['read'] });
  const args = ['daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http'];
  if (metrics) args.push('--metrics-listen', '127.0.0.1:0');
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let printed = '';
  child.stderr.on('data', (d) => (printed += d.toString()));
  // The metrics line follows the listening line, possibly in the same chunk: wait for the last.
  const metricsUrl = metrics ? await waitFor(child, /metrics on (\S+)/) : undefined;
  const url = metrics ? /listening on (\S+)/.exec(printed)[1] : await waitFor(child, /listening on (\S+)/);
  let n = 0;
  const request = {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    setupRequest: (r) => ({
      ...r,
      body: JSON.stringify({
        tenant_id: 'default',
        actor_id: 'bench-agent',
        capability: 'bench.read',
        action: 'read',
        task_id: 'bench',
        effect_key_step: `s${n++}`,
      }),
    }),
  };
  return {
    async run(seconds) {
      let scrapes = 0;
      const scraper = metricsUrl
        ? setInterval(() => void fetch(metricsUrl).then(async (r) => (await r.text(), scrapes++)), 1000)
        : undefined;
      try {
        const r = await load(`${url}/v1/action`, { seconds, requests: [request] });
        return { rps: r.rps, scrapes };
      } finally {
        clearInterval(scraper);
      }
    },
    warm: () => load(`${url}/v1/action`, { seconds: 2, requests: [request] }),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('close', r));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function metricsOverhead(seconds, runs) {
  const on = await benchDaemon(true);
  const off = await benchDaemon(false);
  try {
    await on.warm();
    await off.warm();
    const ratios = [];
    const onRps = [];
    const offRps = [];
    let scrapes = 0;
    for (let i = 0; i < runs; i++) {
      const order = i % 2 === 0 ? [on, off] : [off, on];
      const [a, b] = [await order[0].run(seconds), await order[1].run(seconds)];
      const [withM, without] = order[0] === on ? [a, b] : [b, a];
      onRps.push(withM.rps);
      offRps.push(without.rps);
      scrapes += withM.scrapes;
      ratios.push(withM.rps / without.rps);
    }
    return { on: median(onRps), off: median(offRps), ratio: median(ratios), ratios, scrapes };
  } finally {
    await on.stop();
    await off.stop();
  }
}
