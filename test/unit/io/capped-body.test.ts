import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonClient } from '../../../src/cli/daemon-client.js';
import { BodyTooLarge, MAX_DAEMON_ANSWER, readCappedBody } from '../../../src/io/capped-body.js';
import { clientConfig } from '../../../src/sdk/config.js';
import { Transport } from '../../../src/sdk/transport.js';

/** Sends `total` bytes of JSON whitespace, one chunk after the previous one was taken; counts them. */
function stream(res: ServerResponse, total: number, sent: { bytes: number; closed: Promise<void> }) {
  const chunk = Buffer.alloc(256 * 1024, 0x20);
  const next = () => {
    if (res.destroyed || sent.bytes >= total) {
      if (!res.destroyed) res.end();
      return;
    }
    res.write(chunk, () => {
      sent.bytes += chunk.length;
      setImmediate(next);
    });
  };
  next();
}

describe('HTTP answers read with a running cap', () => {
  let server: Server;
  let base: string;
  const sent = new Map<string, { bytes: number; closed: Promise<void> }>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      let closed!: () => void;
      const s = { bytes: 0, closed: new Promise<void>((r) => (closed = r)) };
      res.on('close', closed);
      sent.set(req.url ?? '', s);
      if (req.url === '/declared') {
        // Declares 64 MiB: refused from the header, before the body is read.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 64 * 1024 * 1024 });
        return stream(res, 64 * 1024 * 1024, s);
      }
      if (req.url === '/small') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"ok":true}');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      stream(res, 2 * MAX_DAEMON_ANSWER, s);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });

  it('reads an answer within the cap whole, and refuses a declared length over it unread', async () => {
    const small = await request(`${base}/small`);
    expect((await readCappedBody(small, 100)).toString()).toBe('{"ok":true}');
    const declared = await request(`${base}/declared`);
    await expect(readCappedBody(declared, 1024)).rejects.toBeInstanceOf(BodyTooLarge);
    await sent.get('/declared')!.closed;
    expect(sent.get('/declared')!.bytes).toBeLessThan(16 * 1024 * 1024);
  });

  it('stops a body without a length as soon as it passes the cap', async () => {
    const res = await request(`${base}/endless`);
    await expect(readCappedBody(res, 1024 * 1024)).rejects.toMatchObject({ limit: 1024 * 1024 });
    await sent.get('/endless')!.closed;
    expect(sent.get('/endless')!.bytes).toBeLessThan(16 * 1024 * 1024);
  });

  it('the CLI’s daemon client refuses an answer larger than any daemon gives, naming the endpoint', async () => {
    const c = new DaemonClient({ endpoint: base, token: 'tok' });
    // On the SDK's transport, as the SDK counts it: lost, the outcome unknown.
    await expect(c.get('/v1/huge')).rejects.toMatchObject({
      kind: 'unavailable',
      code: 'outcome_unknown',
      reason: expect.stringMatching(new RegExp(`^the daemon at ${base}: .*larger than 33554432 bytes`)),
    });
    await c.close();
    await sent.get('/v1/huge')!.closed;
    expect(sent.get('/v1/huge')!.bytes).toBeLessThan(2 * MAX_DAEMON_ANSWER);
  });

  it('the SDK counts such an answer as lost (the outcome unknown), never reads it whole', async () => {
    const t = new Transport(clientConfig({ endpoint: base, token: 'tok', env: {} }));
    const got = await t.send('GET', '/v1/sdk-huge');
    expect(got).toMatchObject({ kind: 'lost', reason: expect.stringMatching(/larger than 33554432 bytes/) });
    await t.close();
    await sent.get('/v1/sdk-huge')!.closed;
    expect(sent.get('/v1/sdk-huge')!.bytes).toBeLessThan(2 * MAX_DAEMON_ANSWER);
  });
});
