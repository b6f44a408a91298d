import { connect, type Socket } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_LIMITS } from '../../src/http/limits.js';
import { serveHttp, type HttpFacade } from '../../src/mcp/http.js';

/** A plain TCP socket to the facade, once connected, and what it received when it closed. */
function tcpSocket(url: string): Promise<{ socket: Socket; closed: Promise<string> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect({ host: hostname, port: Number(port) });
    // Listen before anything can arrive: a dropped socket may close right after connecting.
    const closed = new Promise<string>((done) => socket.once('close', () => done(received)));
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/**
 * `svc mcp --http` listens through the listener every svc server shares: its refusals are
 * the coded error bodies at the one mapping's status, its bodies pass the I-JSON guard, and
 * it keeps the connection cap. Nothing here reaches a daemon: each request is refused first
 * (the daemon address is one nothing listens on).
 */
describe('MCP HTTP facade on the shared listener (real sockets)', () => {
  let facade: HttpFacade;
  const headers = (extra: Record<string, string> = {}) => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...extra,
  });

  beforeAll(async () => {
    facade = await serveHttp(0, { endpoint: 'http://127.0.0.1:1', env: {} });
  });
  afterAll(async () => {
    await facade?.close();
  });

  const post = async (body: string, extra: Record<string, string> = {}) => {
    const res = await request(facade.url, { method: 'POST', headers: headers(extra), body });
    return {
      status: res.statusCode,
      headers: res.headers,
      body: (await res.body.json()) as Record<string, unknown>,
    };
  };
  const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

  it('no token is a 401 with the coded body, a Bearer challenge and a request id', async () => {
    const r = await post(LIST);
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ code: 'missing_token', field: 'authorization' });
    expect(r.body.reason).toMatch(/^authorization: expected Bearer/);
    expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a foreign Host or Origin is a 403 naming the header', async () => {
    const port = new URL(facade.url).port;
    const host = await post(LIST, { authorization: 'Bearer svc_x', host: `evil.example:${port}` });
    expect(host.status).toBe(403);
    expect(host.body).toMatchObject({ code: 'forbidden', field: 'host' });
    const origin = await post(LIST, { authorization: 'Bearer svc_x', origin: 'https://evil.example' });
    expect(origin.status).toBe(403);
    expect(origin.body).toMatchObject({ code: 'forbidden', field: 'origin' });
  });

  it('a body with a duplicate key is refused by the I-JSON guard, never handed to the MCP server', async () => {
    const r = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call"}', {
      authorization: 'Bearer svc_x',
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'method' });
    expect(r.body.reason).toMatch(/duplicate key/);
  });

  it('GET is a 405 with Allow: POST (stateless: no stream to open), in the coded family', async () => {
    const res = await request(facade.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(await res.body.json()).toMatchObject({ code: 'method_not_allowed', field: 'method' });
  });

  it('another path is a 404 that does not echo the path', async () => {
    const res = await request(new URL('/mcp-other', facade.url), {
      method: 'POST',
      headers: headers(),
      body: LIST,
    });
    expect(res.statusCode).toBe(404);
    const body = await res.body.text();
    expect(JSON.parse(body)).toMatchObject({ code: 'not_found' });
    expect(body).not.toContain('mcp-other');
  });
});

// Its own listener: no other test's keep-alive sockets count against its cap.
describe('MCP HTTP facade: the connection cap (real sockets)', () => {
  it('drops a socket over the connection cap unanswered, and answers again once one closes', async () => {
    const facade = await serveHttp(
      0,
      { endpoint: 'http://127.0.0.1:1', env: {} },
      { limits: { ...DEFAULT_SERVER_LIMITS, maxConnections: 2 } },
    );
    const host = new URL(facade.url).host;
    const held = await Promise.all([1, 2].map(() => tcpSocket(facade.url)));
    const over = await tcpSocket(facade.url);
    over.socket.on('error', () => undefined);
    over.socket.write(`GET /mcp HTTP/1.1\r\nhost: ${host}\r\n\r\n`);
    expect(await over.closed).toBe('');
    held[0]!.socket.destroy();
    await held[0]!.closed;
    // The server counts the close once its own side of the socket is gone; ask until it has.
    let status = 0;
    for (let i = 0; i < 50 && status !== 405; i++) {
      const s = await tcpSocket(facade.url);
      s.socket.on('error', () => undefined);
      s.socket.write(`GET /mcp HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`);
      status = Number(/^HTTP\/1\.1 (\d+)/.exec(await s.closed)?.[1] ?? 0);
    }
    expect(status).toBe(405);
    for (const s of held) s.socket.destroy();
    await facade.close();
  });
});
