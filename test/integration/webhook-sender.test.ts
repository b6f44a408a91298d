import { once } from 'node:events';
import {
  createServer as createHttp,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttps } from 'node:https';
import { createServer as createTcp, type AddressInfo, type Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NotifyEvent } from '../../src/core/notify/event.js';
import { DEFAULT_OUTBOUND_POLICY, type OutboundPolicy } from '../../src/notify/outbound-policy.js';
import type { Resolver } from '../../src/notify/outbound-http.js';
import { newWebhookSecret } from '../../src/notify/webhook-secret.js';
import { sendWebhook, webhookSender } from '../../src/notify/webhook-sender.js';
import { serverPki, type ServerPki } from '../helpers/server-pki.js';

// Real receivers on loopback: http and https servers, and raw TCP ones that misbehave.

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

function track(server: Server | ReturnType<typeof createTcp>): void {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });
}

async function listen(
  server: Server | ReturnType<typeof createTcp>,
  host = '127.0.0.1',
  port = 0,
): Promise<number> {
  track(server);
  server.listen(port, host);
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** An http(s) receiver that records what it gets and answers `status` (and `headers`). */
async function receiver(
  answer: (res: ServerResponse) => void = (res) => res.writeHead(204).end(),
  tls?: { cert: string; key: string },
  host = '127.0.0.1',
  port = 0,
): Promise<{ port: number; got: Received[] }> {
  const got: Received[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(res);
    });
  };
  const server = tls ? createHttps(tls, handler) : createHttp(handler);
  return { port: await listen(server, host, port), got };
}

const event: NotifyEvent = {
  id: 'evt_01JDELIVERYTEST0000000000',
  tenantId: 'acme',
  type: 'approval.requested',
  timestamp: '2026-11-27T00:00:00.000Z',
  data: { tenant_id: 'acme', approval_id: 'apr_1', amount: '120.00', currency: 'EUR', note: 'déjà vu' },
};

const loopback: OutboundPolicy = { ...DEFAULT_OUTBOUND_POLICY, allowLoopbackHttp: true, timeoutMs: 5_000 };
const now = () => new Date();

describe('sendWebhook over http to loopback (allowed by the deployment)', () => {
  it('posts the envelope signed as Standard Webhooks; the standardwebhooks package verifies it', async () => {
    const r = await receiver();
    const secret = newWebhookSecret();
    const out = await sendWebhook(
      { url: `http://127.0.0.1:${r.port}/hook`, secrets: [secret] },
      event,
      loopback,
      now(),
    );
    expect(out).toEqual({ kind: 'delivered', status: 204 });
    expect(r.got).toHaveLength(1);
    const { headers, body } = r.got[0]!;
    expect(JSON.parse(body)).toEqual({ type: event.type, timestamp: event.timestamp, data: event.data });
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toMatch(/^svc\/\d+\.\d+\.\d+/);
    expect(headers['webhook-id']).toBe(event.id);
    const verified = new Webhook(secret).verify(body, headers as Record<string, string>);
    expect(verified).toEqual(JSON.parse(body));
    // one byte changed in what was received fails
    expect(() =>
      new Webhook(secret).verify(body.replace('déjà', 'deja'), headers as Record<string, string>),
    ).toThrow();
  });

  it('a retry carries the same event id; a rotated pair signs with both secrets', async () => {
    const r = await receiver();
    const [newer, older] = [newWebhookSecret(), newWebhookSecret()];
    const target = { url: `http://127.0.0.1:${r.port}/`, secrets: [newer, older] };
    await sendWebhook(target, event, loopback, new Date(Date.now() - 60_000));
    await sendWebhook(target, event, loopback, now());
    expect(r.got.map((g) => g.headers['webhook-id'])).toEqual([event.id, event.id]);
    const last = r.got[1]!;
    expect(String(last.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const s of [newer, older]) {
      expect(new Webhook(s).verify(last.body, last.headers as Record<string, string>)).toBeTruthy();
    }
  });

  it('classifies answers: 2xx delivered, 410 gone, any other status retried with its code', async () => {
    for (const [status, expected] of [
      [200, { kind: 'delivered', status: 200 }],
      [202, { kind: 'delivered', status: 202 }],
      [410, { kind: 'gone', status: 410 }],
      [400, { kind: 'retry', status: 400, error: 'status_400' }],
      [429, { kind: 'retry', status: 429, error: 'status_429' }],
      [500, { kind: 'retry', status: 500, error: 'status_500' }],
    ] as const) {
      const r = await receiver((res) => res.writeHead(status).end('{"secret":"do-not-echo"}'));
      const out = await sendWebhook(
        { url: `http://127.0.0.1:${r.port}/`, secrets: [newWebhookSecret()] },
        event,
        loopback,
        now(),
      );
      expect(out).toEqual(expected);
      expect(JSON.stringify(out)).not.toContain('do-not-echo');
    }
  });

  it('refuses http to loopback unless the deployment allows it, and never sends unsigned', async () => {
    const r = await receiver();
    const url = `http://127.0.0.1:${r.port}/`;
    expect(
      await sendWebhook({ url, secrets: [newWebhookSecret()] }, event, DEFAULT_OUTBOUND_POLICY, now()),
    ).toEqual({
      kind: 'refused',
      error: 'http_not_allowed',
    });
    expect(await sendWebhook({ url, secrets: [] }, event, loopback, now())).toEqual({
      kind: 'refused',
      error: 'bad_secret',
    });
    expect(await sendWebhook({ url, secrets: ['not-a-secret'] }, event, loopback, now())).toEqual({
      kind: 'refused',
      error: 'bad_secret',
    });
    expect(r.got).toHaveLength(0);
  });

  it('reaches an IPv6 loopback literal as well', async () => {
    const r = await receiver(undefined, undefined, '::1');
    const out = await sendWebhook(
      { url: `http://[::1]:${r.port}/hook`, secrets: [newWebhookSecret()] },
      event,
      loopback,
      now(),
    );
    expect(out).toEqual({ kind: 'delivered', status: 204 });
    expect(r.got).toHaveLength(1);
  });

  it('a connection refused is a connect retry', async () => {
    const tcp = createTcp();
    const port = await listen(tcp);
    await closers.pop()!();
    expect(
      await sendWebhook(
        { url: `http://127.0.0.1:${port}/`, secrets: [newWebhookSecret()] },
        event,
        loopback,
        now(),
      ),
    ).toEqual({
      kind: 'retry',
      status: null,
      error: 'connect',
    });
  });
});

describe('redirects are not followed', () => {
  it('a 3xx is a redirect retry and its Location gets nothing', async () => {
    const target = await receiver();
    const r = await receiver((res) =>
      res.writeHead(307, { location: `http://127.0.0.1:${target.port}/elsewhere` }).end(),
    );
    const out = await sendWebhook(
      { url: `http://127.0.0.1:${r.port}/`, secrets: [newWebhookSecret()] },
      event,
      loopback,
      now(),
    );
    expect(out).toEqual({ kind: 'retry', status: 307, error: 'redirect' });
    expect(r.got).toHaveLength(1);
    expect(target.got).toHaveLength(0);
  });
});

describe('bounded in time and memory', () => {
  const quick: OutboundPolicy = { ...loopback, timeoutMs: 400 };

  /** A raw TCP receiver; resolves with how its connection ended. */
  async function raw(onSocket: (s: Socket) => void): Promise<{ port: number; closed: Promise<void> }> {
    let closed!: () => void;
    const done = new Promise<void>((r) => (closed = r));
    const tcp = createTcp((s) => {
      s.on('error', () => undefined);
      s.on('close', () => closed());
      // read what the sender writes, so its close (FIN) is seen
      s.on('data', () => undefined);
      onSocket(s);
    });
    return { port: await listen(tcp), closed: done };
  }

  it('a receiver that never answers is cut at the time-out', async () => {
    const r = await raw(() => undefined);
    const out = await sendWebhook(
      { url: `http://127.0.0.1:${r.port}/`, secrets: [newWebhookSecret()] },
      event,
      quick,
      now(),
    );
    expect(out).toEqual({ kind: 'retry', status: null, error: 'timeout' });
    await r.closed; // the connection was closed by the sender, not left open
  });

  it('a receiver that trickles its headers is cut at the time-out', async () => {
    const r = await raw((s) => {
      const line = 'HTTP/1.1 200 OK\r\nx-slow: ' + 'a'.repeat(10_000);
      let i = 0;
      const t = setInterval(
        () => (i < line.length && !s.destroyed ? s.write(line[i++]!) : clearInterval(t)),
        20,
      );
      s.on('close', () => clearInterval(t));
    });
    const out = await sendWebhook(
      { url: `http://127.0.0.1:${r.port}/`, secrets: [newWebhookSecret()] },
      event,
      quick,
      now(),
    );
    expect(out).toEqual({ kind: 'retry', status: null, error: 'timeout' });
    await r.closed;
  });

  it('a 2xx whose body trickles forever is delivered and the connection closed by the time-out', async () => {
    const r = await raw((s) => {
      s.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n');
      const t = setInterval(() => (s.destroyed ? clearInterval(t) : s.write('1\r\nx\r\n')), 20);
      s.on('close', () => clearInterval(t));
    });
    const out = await sendWebhook(
      { url: `http://127.0.0.1:${r.port}/`, secrets: [newWebhookSecret()] },
      event,
      quick,
      now(),
    );
    expect(out).toEqual({ kind: 'delivered', status: 200 });
    await r.closed;
  });

  it('a 64 MiB answer is read up to the bound, then the connection dropped', async () => {
    const total = 64 * 1024 * 1024;
    let written = 0;
    let finished = false;
    const r = await raw((s) => {
      s.once('data', () => {
        s.write(`HTTP/1.1 500 Internal Server Error\r\ncontent-length: ${total}\r\n\r\n`);
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = (): void => {
          while (written < total && !s.destroyed) {
            written += chunk.length;
            if (!s.write(chunk)) return void s.once('drain', pump);
          }
          if (written >= total) finished = true;
        };
        pump();
      });
    });
    const out = await sendWebhook(
      { url: `http://127.0.0.1:${r.port}/`, secrets: [newWebhookSecret()] },
      event,
      loopback,
      now(),
    );
    expect(out).toEqual({ kind: 'retry', status: 500, error: 'status_500' });
    await r.closed;
    // the receiver could not push the whole answer: the sender stopped reading at the bound
    expect(finished).toBe(false);
    expect(written).toBeLessThan(total / 4);
  });
});

describe('over https, with certificates verified against the name', () => {
  let pki: ServerPki;
  let other: ServerPki;
  beforeAll(async () => {
    pki = await serverPki('webhook test CA');
    other = await serverPki('some other CA');
  });

  it('delivers to a receiver whose certificate the given CA signed, by name, pinned to the checked address', async () => {
    const r = await receiver(undefined, await pki.issue('localhost'));
    const send = webhookSender({ ca: pki.caPem });
    const secret = newWebhookSecret();
    const out = await send(
      { url: `https://localhost:${r.port}/in`, secrets: [secret] },
      event,
      loopback,
      now(),
    );
    expect(out).toEqual({ kind: 'delivered', status: 204 });
    expect(r.got[0]!.headers.host).toBe(`localhost:${r.port}`);
    expect(
      new Webhook(secret).verify(r.got[0]!.body, r.got[0]!.headers as Record<string, string>),
    ).toBeTruthy();
  });

  it('a certificate from another CA is a tls retry, and the system trust roots do not know the test CA', async () => {
    const r = await receiver(undefined, await other.issue('localhost'));
    const url = `https://localhost:${r.port}/in`;
    const out = await webhookSender({ ca: pki.caPem })(
      { url, secrets: [newWebhookSecret()] },
      event,
      loopback,
      now(),
    );
    expect(out).toEqual({ kind: 'retry', status: null, error: 'tls' });
    expect(await sendWebhook({ url, secrets: [newWebhookSecret()] }, event, loopback, now())).toEqual({
      kind: 'retry',
      status: null,
      error: 'tls',
    });
    expect(r.got).toHaveLength(0);
  });

  it('a name that resolves to 127.0.0.1 is refused without the allowance, and allowed when listed', async () => {
    const r = await receiver(undefined, await pki.issue('localhost'));
    const send = webhookSender({ ca: pki.caPem });
    const url = `https://localhost:${r.port}/in`;
    const strict = { ...DEFAULT_OUTBOUND_POLICY, timeoutMs: 5_000 };
    expect(await send({ url, secrets: [newWebhookSecret()] }, event, strict, now())).toEqual({
      kind: 'refused',
      error: 'loopback_address',
    });
    expect(r.got).toHaveLength(0);
    const listed = { ...strict, allowPrivate: ['localhost'] };
    expect(await send({ url, secrets: [newWebhookSecret()] }, event, listed, now())).toMatchObject({
      kind: 'delivered',
    });
  });
});

describe('the send-time address check (a resolver the test controls)', () => {
  const answering = (...answers: string[][]): Resolver & { calls: number } => {
    const fn = Object.assign(
      async (_host: string) => {
        const a = answers[Math.min(fn.calls++, answers.length - 1)]!;
        return a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      },
      { calls: 0 },
    );
    return fn;
  };

  it.each([
    [['127.0.0.1'], 'loopback_address'],
    [['::1'], 'loopback_address'],
    [['::ffff:127.0.0.1'], 'loopback_address'],
    [['10.1.2.3'], 'private_address'],
    [['192.168.1.1'], 'private_address'],
    [['100.64.0.1'], 'private_address'],
    [['fd12::1'], 'private_address'],
    [['fe80::1'], 'private_address'],
    [['0.0.0.0'], 'private_address'],
    [['169.254.169.254'], 'metadata_address'],
    [['::ffff:169.254.169.254'], 'metadata_address'],
    [['fd00:ec2::254'], 'metadata_address'],
    [['93.184.216.34', '10.0.0.1'], 'private_address'],
  ])('a name resolving to %j is refused (%s) and nothing is sent', async (addresses, error) => {
    const send = webhookSender({ resolve: answering(addresses) });
    const out = await send(
      { url: 'https://hooks.example.com/in', secrets: [newWebhookSecret()] },
      event,
      DEFAULT_OUTBOUND_POLICY,
      now(),
    );
    expect(out).toEqual({ kind: 'refused', error });
  });

  it.each([
    ['https://2130706433/in', 'loopback_address'],
    ['https://0x7f.1/in', 'loopback_address'],
    ['https://[::ffff:a9fe:a9fe]/in', 'metadata_address'],
    ['https://169.254.169.254/latest/meta-data/', 'metadata_address'],
    ['https://[fe80::1]/in', 'private_address'],
    ['http://10.0.0.1/in', 'http_not_allowed'],
    ['http://93.184.216.34/in', 'http_not_allowed'],
  ])('an address written in the URL, %s, is judged the same (%s)', async (url, error) => {
    const resolve = answering(['93.184.216.34']);
    const out = await webhookSender({ resolve })(
      { url, secrets: [newWebhookSecret()] },
      event,
      DEFAULT_OUTBOUND_POLICY,
      now(),
    );
    expect(out).toEqual({ kind: 'refused', error });
    expect(resolve.calls).toBe(0);
  });

  it('a listed CIDR allows a private address; the metadata address needs naming exactly', async () => {
    const policy = {
      ...DEFAULT_OUTBOUND_POLICY,
      allowPrivate: ['10.0.0.0/8', '169.254.0.0/16'],
      timeoutMs: 300,
    };
    const tenDot = await webhookSender({ resolve: answering(['10.255.255.1']) })(
      { url: 'https://hooks.internal/in', secrets: [newWebhookSecret()] },
      event,
      policy,
      now(),
    );
    // allowed by the check, so it was attempted (nothing listens there in a test)
    expect(tenDot.kind).toBe('retry');
    const meta = await webhookSender({ resolve: answering(['169.254.169.254']) })(
      { url: 'https://hooks.internal/in', secrets: [newWebhookSecret()] },
      event,
      policy,
      now(),
    );
    expect(meta).toEqual({ kind: 'refused', error: 'metadata_address' });
  });

  it('a DNS rebind between check and connect cannot move the request: it goes to the checked address', async () => {
    const checked = await receiver(undefined, undefined, '127.0.0.1');
    const rebound = await receiver(undefined, undefined, '127.0.0.2', checked.port);
    const resolve = answering(['127.0.0.1'], ['127.0.0.2']);
    const out = await webhookSender({ resolve })(
      { url: `http://rebind.test:${checked.port}/in`, secrets: [newWebhookSecret()] },
      event,
      loopback,
      now(),
    );
    expect(out).toEqual({ kind: 'delivered', status: 204 });
    expect(resolve.calls).toBe(1);
    expect(checked.got).toHaveLength(1);
    expect(checked.got[0]!.headers.host).toBe(`rebind.test:${checked.port}`);
    expect(rebound.got).toHaveLength(0);
  });

  it('keeps a connection alive only for attempts whose own check allowed the address it goes to', async () => {
    const counted = async (host: string, port = 0) => {
      const server = createHttp((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(204).end());
      });
      const r = { connections: 0, requests: 0, port: 0 };
      server.on('connection', () => (r.connections += 1));
      server.on('request', () => (r.requests += 1));
      r.port = await listen(server, host, port);
      return r;
    };
    const first = await counted('127.0.0.1');
    const second = await counted('127.0.0.2', first.port);
    const resolve = answering(...Array<string[]>(8).fill(['127.0.0.1']), ['127.0.0.2'], ['10.0.0.1']);
    const send = webhookSender({ resolve });
    const target = { url: `http://keepalive.test:${first.port}/in`, secrets: [newWebhookSecret()] };
    for (let i = 0; i < 9; i++) {
      expect(await send(target, event, loopback, now())).toEqual({ kind: 'delivered', status: 204 });
    }
    // Eight attempts checked 127.0.0.1 and went over kept connections (a second one may open
    // while the first is being handed back). The ninth was checked to 127.0.0.2: a connection
    // of its own there, never a kept one.
    expect(first.requests).toBe(8);
    expect(first.connections).toBeLessThanOrEqual(2);
    expect(second).toMatchObject({ requests: 1, connections: 1 });
    // The check runs at every attempt: a kept connection does not carry a refused name through.
    expect(await send(target, event, loopback, now())).toEqual({
      kind: 'refused',
      error: 'http_not_allowed',
    });
    expect(first.requests + second.requests).toBe(9);
    expect(resolve.calls).toBe(10);
  });

  it('a connection cut by the time-out is closed, not kept for the next attempt', async () => {
    let hang = true;
    const sockets: Socket[] = [];
    const server = createHttp((req, res) => {
      req.resume();
      req.on('end', () => {
        if (!hang) res.writeHead(204).end();
      });
    });
    server.on('connection', (s: Socket) => sockets.push(s));
    const port = await listen(server);
    const send = webhookSender({ resolve: answering(['127.0.0.1']) });
    const target = { url: `http://hang.test:${port}/in`, secrets: [newWebhookSecret()] };
    const short = { ...loopback, timeoutMs: 300 };
    expect(await send(target, event, short, now())).toEqual({
      kind: 'retry',
      status: null,
      error: 'timeout',
    });
    expect(sockets).toHaveLength(1);
    if (!sockets[0]!.closed) await once(sockets[0]!, 'close');
    hang = false;
    expect(await send(target, event, short, now())).toEqual({ kind: 'delivered', status: 204 });
  });

  it('a resolver that never answers is cut at the time-out', async () => {
    const send = webhookSender({ resolve: () => new Promise(() => undefined) });
    const out = await send(
      { url: 'https://hooks.example.com/in', secrets: [newWebhookSecret()] },
      event,
      { ...DEFAULT_OUTBOUND_POLICY, timeoutMs: 200 },
      now(),
    );
    expect(out).toEqual({ kind: 'retry', status: null, error: 'timeout' });
  });
});
