import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { dueAt, paced, quantile } from '../../bench/paced.mjs';

/** A server that answers every request after `delayMs`. */
async function slowServer(delayMs: number): Promise<{ server: Server; url: string }> {
  const server = createServer((q, r) => {
    q.resume();
    q.on('end', () => setTimeout(() => r.end('{}'), delayMs));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

const request = { method: 'POST', headers: { 'content-type': 'application/json' }, body: () => '{}' };

describe('the bench’s paced generator', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('spaces requests evenly and takes quantiles by nearest rank', () => {
    expect(dueAt(0, 100)).toBe(0n);
    expect(dueAt(3, 100)).toBe(30_000_000n);
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(quantile([1, 2, 3, 4], 0.99)).toBe(4);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it('charges a request that waited for a connection from its due time (the server held it up)', async () => {
    // One connection, 20 ms per answer, a request due every 5 ms: each waits for the ones
    // before it, and the last of 20 is answered about 20 x 20 - 19 x 5 = 305 ms after it was due.
    const s = await slowServer(20);
    server = s.server;
    const r = await paced(s.url, { rate: 200, seconds: 0.1, request, connections: 1 });
    expect(r.answered).toBe(20);
    expect(r.errors).toBe(0);
    expect(r.max_ms).toBeGreaterThan(250);
    expect(r.p50_ms).toBeGreaterThan(100);
  });

  it('charges a request sent on a free connection from when it left: its own lateness is lag', async () => {
    // The generator itself stalls for 300 ms (its own event loop, not the server): the six or
    // so requests due meanwhile leave late, on free connections. Counted from their due times
    // they would be the slowest tenth by far (100 to 300 ms); counted from when they left,
    // they cost what the others do, and the stall shows as send lag.
    const s = await slowServer(1);
    server = s.server;
    setTimeout(() => {
      const until = Date.now() + 300;
      while (Date.now() < until) {
        // the generator's own stall
      }
    }, 60);
    const r = await paced(s.url, { rate: 20, seconds: 1, request, connections: 32 });
    expect(r.answered).toBe(20);
    expect(r.lag_p99_ms).toBeGreaterThan(200);
    expect(r.p90_ms).toBeLessThan(100);
  });
});
