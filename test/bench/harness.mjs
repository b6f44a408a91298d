// What the benchmarks share: where the built CLI is, a bare node:http baseline, and a load run.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const bin = join(root, 'bin/run.js');
export const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;

/** The ceiling: node:http answering every request with a small JSON body, nothing else. */
export function startBare() {
  return spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:http').createServer((q, r) => { let b = ''; q.on('data', (d) => (b += d)); q.on('end', () => {
         r.setHeader('content-type', 'application/json'); r.end(JSON.stringify({ decision: 'allowed', n: b.length })); }); });
       s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

export function waitFor(child, re) {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d) => {
      buf += d.toString();
      const m = re.exec(buf);
      if (m) resolve(m[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (c) => reject(new Error(`exited ${c}: ${buf}`)));
  });
}

export async function load(url, { seconds, headers = {}, requests, rate, connections = 32 }) {
  const r = await autocannon({
    url,
    connections,
    duration: seconds,
    headers,
    ...(requests ? { requests } : {}),
    ...(rate ? { overallRate: rate } : {}),
  });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rps: r.requests.average, p50_ms: r.latency.p50, p99_ms: r.latency.p99 };
}
