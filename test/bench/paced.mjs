// An open-loop, evenly paced load generator: requests go out at a fixed rate whether or not
// the server keeps up, spaced evenly in time, and each latency counts from when its request
// was due, not from when it went out (so a stall is charged to every request it delays:
// no coordinated omission). autocannon's `overallRate` is a per-second quota that each
// connection sends in a burst at full speed and then idles, which measures a burst's
// queueing, not the latency at that rate.
//
//   node test/bench/paced.mjs [rate] [seconds]   paces a bare node:http server (a self-check)
import { Agent, request as send } from 'node:http';
import { fileURLToPath } from 'node:url';

/** When request `i` is due, in nanoseconds after the start: `i / rate` seconds. */
export function dueAt(i, rate) {
  return BigInt(Math.round((i * 1e9) / rate));
}

/**
 * The `q` quantile (0 < q <= 1) of `sorted` (ascending) by nearest rank: the smallest value
 * with at least `q` of the values at or below it.
 */
export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/**
 * `rate` requests a second for `seconds`, over at most `connections` keep-alive connections
 * to `url`; `request` is `{ method, headers, body() }`. Resolves to the achieved rate (the
 * answered requests over the time from the first due time to the last answer), latency
 * quantiles in milliseconds (microsecond resolution), errors (network errors, non-2xx and
 * requests still unanswered `drainSeconds` after the last was due) and `lag_p99_ms`, how late
 * the generator itself sent its requests (a high figure means this process, not the server,
 * fell behind the schedule; its delay is inside the latencies either way).
 */
export async function paced(url, { rate, seconds, request, connections = 32, drainSeconds = 10 }) {
  if (!(rate > 0) || !(seconds > 0)) throw new Error(`paced: rate and seconds must be positive`);
  const total = Math.max(1, Math.round(rate * seconds));
  const agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const latencyUs = new Float64Array(total);
  const lagUs = new Float64Array(total);
  let answered = 0;
  let errors = 0;
  let firstError;
  let lastAnswer = 0n;
  let next = 0;
  const t0 = process.hrtime.bigint();

  const fire = (i, due) => {
    lagUs[i] = Number(process.hrtime.bigint() - due) / 1e3;
    let over = false; // a request and its response can both report an error: count it once
    const fail = (why) => {
      if (over) return;
      over = true;
      errors++;
      firstError ??= why;
      latencyUs[i] = NaN;
      settle();
    };
    const q = send(url, { method: request.method, headers: request.headers, agent }, (r) => {
      r.resume();
      r.on('end', () => {
        const now = process.hrtime.bigint();
        if (r.statusCode < 200 || r.statusCode > 299) return fail(`HTTP ${r.statusCode}`);
        if (over) return;
        over = true;
        latencyUs[i] = Number(now - due) / 1e3;
        answered++;
        lastAnswer = now;
        settle();
      });
      r.on('error', (err) => fail(err.message));
    });
    q.on('error', (err) => fail(err.message));
    q.end(request.body());
  };

  let settled = 0;
  let allSettled;
  const done = new Promise((resolve) => (allSettled = resolve));
  const settle = () => {
    if (++settled === total) allSettled();
  };

  // Each tick sends every request now due, then sleeps until the next one is: a timer, not a
  // spin, so the generator leaves the shared cores to the server. A timer fires up to about
  // a millisecond late; that lateness is in the latencies and reported as lag.
  await new Promise((resolve) => {
    const tick = () => {
      const now = process.hrtime.bigint() - t0;
      while (next < total && dueAt(next, rate) <= now) {
        fire(next, t0 + dueAt(next, rate));
        next++;
      }
      if (next === total) return resolve();
      const waitMs = Number(dueAt(next, rate) - (process.hrtime.bigint() - t0)) / 1e6;
      setTimeout(tick, Math.max(0, Math.floor(waitMs)));
    };
    tick();
  });
  const drained = await Promise.race([
    done.then(() => true),
    new Promise((resolve) => setTimeout(() => resolve(false), drainSeconds * 1000).unref()),
  ]);
  agent.destroy();
  const unanswered = total - settled;
  if (!drained) {
    errors += unanswered;
    firstError ??= `${unanswered} requests unanswered ${drainSeconds} s after the last was due`;
  }

  const ok = latencyUs.filter((x) => x > 0); // the answered ones: errors are NaN, unanswered 0
  ok.sort();
  lagUs.sort();
  const ms = (us) => us / 1e3;
  const elapsed = answered > 0 ? Number(lastAnswer - t0) / 1e9 : seconds;
  return {
    rate,
    seconds,
    connections,
    sent: total,
    answered,
    errors,
    first_error: firstError,
    achieved_rps: answered / elapsed,
    p50_ms: ms(quantile(ok, 0.5)),
    p90_ms: ms(quantile(ok, 0.9)),
    p99_ms: ms(quantile(ok, 0.99)),
    max_ms: ms(quantile(ok, 1)),
    lag_p99_ms: ms(quantile(lagUs, 0.99)),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { startBare, waitFor } = await import('./harness.mjs');
  const rate = Number(process.argv[2] ?? 1000);
  const seconds = Number(process.argv[3] ?? 3);
  const bare = startBare();
  try {
    const url = await waitFor(bare, /listening on (\S+)/);
    const body = () => JSON.stringify({ n: 1 });
    const request = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
    console.log(JSON.stringify(await paced(url, { rate, seconds, request }), null, 2));
  } finally {
    bare.kill('SIGTERM');
  }
}
