// An open-loop, evenly paced load generator: requests go out at a fixed rate whether or not
// the server keeps up, spaced evenly in time. A request that has to wait for a connection
// (all of them busy with earlier answers) counts its latency from when it was due, so a
// server stall is charged to every request it delays (no coordinated omission); one sent on
// a free connection counts from when it left, since only this process's own timer (about a
// millisecond coarse) could have made it late, and that lateness is reported apart, as lag.
// autocannon's `overallRate` is a per-second quota that each connection sends in a burst at
// full speed and then idles, which measures a burst's queueing, not the latency at that rate.
//
//   node test/bench/paced.mjs [rate] [seconds]   paces a bare node:http server (a self-check)
import { fileURLToPath } from 'node:url';
import { RawConnection, requestBytes } from './raw-http.mjs';

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
 * requests left after their due time (the generator's own timer, and for a request that
 * waited for a connection that wait too; a high figure with few waits means this process,
 * not the server, fell behind the schedule).
 */
export async function paced(url, { rate, seconds, request, connections = 32, drainSeconds = 10 }) {
  if (!(rate > 0) || !(seconds > 0)) throw new Error(`paced: rate and seconds must be positive`);
  const total = Math.max(1, Math.round(rate * seconds));
  // Every connection is open before the first request is due: setting one up is not what
  // is measured. A request due while all are busy waits for the first one free.
  const free = await Promise.all(Array.from({ length: connections }, () => RawConnection.open(url)));
  const all = [...free];
  const waiting = [];
  const latencyUs = new Float64Array(total);
  const lagUs = new Float64Array(total);
  let answered = 0;
  let errors = 0;
  let firstError;
  let lastAnswer = 0n;
  let next = 0;
  const t0 = process.hrtime.bigint();

  // `queued`: the request waited for a connection, so the server held it up from its due
  // time; otherwise only this process's own timer did, and the server's time starts when the
  // request left.
  const fire = (conn, i, due, queued) => {
    const sent = process.hrtime.bigint();
    lagUs[i] = Number(sent - due) / 1e3;
    const from = queued ? due : sent;
    conn.send(requestBytes(url, request, request.body())).then(
      (status) => {
        const now = process.hrtime.bigint();
        if (status < 200 || status > 299) fail(i, `HTTP ${status}`);
        else {
          latencyUs[i] = Number(now - from) / 1e3;
          answered++;
          lastAnswer = now;
          settle();
        }
        release(conn);
      },
      (err) => fail(i, err.message),
    );
  };
  const fail = (i, why) => {
    errors++;
    firstError ??= why;
    latencyUs[i] = NaN;
    settle();
  };
  const release = (conn) => {
    const w = waiting.shift();
    if (w) fire(conn, w[0], w[1], true);
    else free.push(conn);
  };
  const due = (i, at) => {
    const conn = free.pop();
    if (conn) fire(conn, i, at, false);
    else waiting.push([i, at]);
  };

  let settled = 0;
  let allSettled;
  const done = new Promise((resolve) => (allSettled = resolve));
  const settle = () => {
    if (++settled === total) allSettled();
  };

  // Each tick sends every request now due, then sleeps until the next one is: a timer, not a
  // spin, so the generator leaves the shared cores to the server. A timer fires up to about
  // a millisecond late; that lateness is reported as lag, and counted in a latency only when
  // the request also waited for a connection (see `fire`).
  await new Promise((resolve) => {
    const tick = () => {
      const now = process.hrtime.bigint() - t0;
      while (next < total && dueAt(next, rate) <= now) {
        due(next, t0 + dueAt(next, rate));
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
  for (const conn of all) conn.close();
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
