// Notifications: what a subscriber costs the decisions, and how fast a backlog drains.
//
// 1. Refused POST /v1/action decisions per second with two webhook destinations subscribed to
//    decision.refused (each decision stages its two deliveries in its own durable transaction,
//    and the daemon's loop fans them out into the event and its deliveries and sends them to
//    two loopback receivers answering 204)
//    against the same daemon setup with no destination (nothing written besides the refusal),
//    interleaved round by round, the order alternating. The subscribed daemon's outbox is
//    emptied after each of its rounds, before the next round starts: each side is measured
//    on an otherwise idle machine, and the subscribed side's figure includes what its loop
//    sends DURING the round (one at a time and paced while requests are being answered).
// 2. The drain: N events queued in the outbox while no daemon delivered (the receiver down),
//    then a daemon started against a receiver that answers at most R per second: the rate
//    the outbox drains at, first event to last, against R. Also against a receiver without a
//    limit, for the loop's own ceiling.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { bin, dist, provisionBench, waitFor } from './harness.mjs';
import { cpuSince, mainThreadCpu, perDecisionUs } from './thread-cpu.mjs';

const CAPABILITY = { name: 'bench.write', custody: 'grant', actions: ['write'] };
// Every decision is refused by the policy: each one is a `decision.refused` event.
const FORBID_ALL = 'forbid (principal, action, resource);';

/** A loopback receiver answering 204; with `perSecond`, no faster than that (one slot each). */
async function receiver(perSecond) {
  const got = [];
  let nextSlot = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = () => {
        got.push(performance.now());
        res.writeHead(204).end();
      };
      if (perSecond === undefined) return answer();
      const now = performance.now();
      nextSlot = Math.max(nextSlot, now) + 1000 / perSecond;
      setTimeout(answer, nextSlot - now);
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    got,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(ok);
      }),
  };
}

function svc(args, env) {
  const r = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`svc ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return r.stdout;
}

const addHook = (id, url, events, env) =>
  svc(
    [
      'notify',
      'add',
      id,
      '--tenant',
      'default',
      '--kind',
      'webhook',
      '--url',
      url,
      '--events',
      events,
      '--json',
    ],
    env,
  );

async function startDaemon(env) {
  const child = spawn(
    process.execPath,
    [
      bin,
      'daemon',
      'start',
      '--listen',
      '127.0.0.1:0',
      '--allow-insecure-http',
      '--notify-allow-loopback-http',
    ],
    { env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const url = await waitFor(child, /listening on (\S+)/);
  return {
    url,
    pid: child.pid,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('close', r));
    },
  };
}

async function refusalDaemon(hooks) {
  const home = mkdtempSync(join(tmpdir(), `svc-bench-notify-${hooks.length}-`));
  const env = { ...process.env, SVC_HOME: home };
  const token = await provisionBench(home, env, CAPABILITY, FORBID_ALL);
  hooks.forEach((url, i) => addHook(`hook-${i}`, url, 'decision.refused', env));
  const daemon = await startDaemon(env);
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
        effect_key_step: `s${n++}`,
      }),
    }),
  };
  const run = async (seconds) => {
    const cpuBefore = mainThreadCpu(daemon.pid);
    const r = await autocannon({
      url: `${daemon.url}/v1/action`,
      connections: 32,
      duration: seconds,
      requests: [request],
    });
    // Every answer is the refusal (403): anything else would measure something else.
    if (r.errors > 0 || r['2xx'] > 0 || r['5xx'] > 0 || r.non2xx !== r.requests.total) {
      throw new Error(`refusals expected: ${r['2xx']} 2xx, ${r['5xx']} 5xx, ${r.errors} errors`);
    }
    const cpuUs = perDecisionUs(cpuSince(cpuBefore, mainThreadCpu(daemon.pid)), r.requests.total);
    return { rps: r.requests.average, total: r.requests.total, cpuUs };
  };
  return {
    home,
    env,
    run,
    warm: () => run(2),
    async stop() {
      await daemon.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function subscriberCost(seconds, runs) {
  const receivers = [await receiver(), await receiver()];
  const on = await refusalDaemon(receivers.map((r) => r.url));
  const off = await refusalDaemon([]);
  try {
    await on.warm();
    await off.warm();
    const ratios = [];
    const onRps = [];
    const onCpu = [];
    const offCpu = [];
    const offRps = [];
    let refusals = 0;
    // The subscribed daemon's outbox is emptied before every round, so neither side runs
    // beside a backlog being sent (the subscribed daemon is idle during the other round and
    // would drain at full concurrency, taking the other side's CPU).
    const drained = async () => {
      const since = Date.now();
      while (Date.now() - since < 120_000) {
        const out = JSON.parse(
          svc(
            ['notify', 'deliveries', '--tenant', 'default', '--state', 'pending', '--limit', '1', '--json'],
            on.env,
          ),
        );
        if (out.items.length === 0) return Date.now() - since;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error('the outbox did not drain within 120 s');
    };
    const drains = [];
    for (let i = 0; i < runs; i++) {
      const order = i % 2 === 0 ? [on, off] : [off, on];
      const results = [];
      for (const side of order) {
        results.push(await side.run(seconds));
        if (side === on) drains.push(await drained());
      }
      const [a, b] = results;
      const [withHooks, without] = order[0] === on ? [a, b] : [b, a];
      onCpu.push(withHooks.cpuUs);
      offCpu.push(without.cpuUs);
      onRps.push(withHooks.rps);
      offRps.push(without.rps);
      refusals += withHooks.total;
      ratios.push(withHooks.rps / without.rps);
    }
    return {
      on: median(onRps),
      off: median(offRps),
      ratio: median(ratios),
      ratios,
      onCpuUs: median(onCpu),
      offCpuUs: median(offCpu),
      cpuRatios: onCpu.map((c, i) => offCpu[i] / c),
      refusals,
      received: receivers.map((r) => r.got.length),
      drainedAfterMs: Math.max(...drains),
      drains,
    };
  } finally {
    await on.stop();
    await off.stop();
    for (const r of receivers) await r.close();
  }
}

/** N events in the outbox for one destination, written while no daemon runs (the receiver is down). */
async function queued(n, perSecond) {
  const rcv = await receiver(perSecond);
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-drain-'));
  const env = { ...process.env, SVC_HOME: home };
  try {
    svc(['init', '--yes', '--json'], env);
    addHook('drain', rcv.url, 'approval.*', env);
    const { SqliteStore } = await import(dist('src/store/sqlite/store.js'));
    const { sqliteOutbox } = await import(dist('src/store/sqlite/outbox.js'));
    const { newEvent } = await import(dist('src/core/notify/outbox.js'));
    const store = SqliteStore.open(join(home, 'svc.db'));
    const at = new Date().toISOString();
    store.db.transaction(() => {
      const outbox = sqliteOutbox(store.db);
      for (let i = 0; i < n; i++) {
        outbox.writeEvent(newEvent('default', 'approval.requested', at, { approval_id: `apr_${i}` }), [
          'drain',
        ]);
      }
    })();
    await store.close();
    const daemon = await startDaemon(env);
    try {
      const end = Date.now() + 10 * 60_000;
      while (rcv.got.length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      if (rcv.got.length < n) throw new Error(`drain: ${rcv.got.length} of ${n} delivered in 10 minutes`);
      const first = rcv.got[0];
      const last = rcv.got[n - 1];
      return { n, perSecond, rate: ((n - 1) * 1000) / (last - first) };
    } finally {
      await daemon.stop();
    }
  } finally {
    await rcv.close();
    rmSync(home, { recursive: true, force: true });
  }
}

export async function notifyBench(seconds, runs, { events = 2000, perSecond = 200 } = {}) {
  const cost = await subscriberCost(seconds, runs);
  const limited = await queued(events, perSecond);
  const unlimited = await queued(events, undefined);
  return { cost, limited, unlimited };
}
