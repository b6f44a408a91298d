import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestActivity } from '../../../src/http/request-activity.js';

/** A real server whose requests each wait until the test answers them. */
function heldServer() {
  const held: ServerResponse[] = [];
  const arrived: (() => void)[] = [];
  const server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    held.push(res);
    for (const a of arrived.splice(0)) a();
  });
  const activity = new RequestActivity();
  activity.watch(server);
  const listening = new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
  /** Resolves once `n` requests have reached the handler. */
  const reached = async (n: number) => {
    while (held.length < n) await new Promise<void>((r) => arrived.push(r));
  };
  return { server, activity, held, listening, reached };
}

const send = (port: number) => {
  const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', agent: false });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  req.end('{}');
  return { req, answered };
};

/** Closes the server, cutting off what a failed test left held. */
const stop = (server: ReturnType<typeof createServer>) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

/** Waits until `count` reads `n`: a response's 'close' follows its last write by a turn or two. */
async function settlesAt(activity: RequestActivity, n: number): Promise<void> {
  for (let i = 0; i < 200 && activity.count !== n; i++) await new Promise((r) => setTimeout(r, 5));
  expect(activity.count).toBe(n);
}

describe('RequestActivity', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('counts requests from arrival to the close of their response; quiet with at most one', async () => {
    const s = heldServer();
    close = () => stop(s.server);
    const port = await s.listening;
    expect(s.activity.quiet()).toBe(true);
    const first = send(port);
    await s.reached(1);
    expect(s.activity.count).toBe(1);
    expect(s.activity.quiet()).toBe(true);
    const second = send(port);
    await s.reached(2);
    expect(s.activity.count).toBe(2);
    expect(s.activity.quiet()).toBe(false);
    s.held[0]!.end('ok');
    await first.answered;
    await settlesAt(s.activity, 1);
    expect(s.activity.quiet()).toBe(true);
    s.held[1]!.end('ok');
    await second.answered;
    await settlesAt(s.activity, 0);
  });

  it('stops counting a request whose client went away before its answer', async () => {
    const s = heldServer();
    close = () => stop(s.server);
    const port = await s.listening;
    const gone = send(port);
    gone.answered.catch(() => undefined);
    const staying = send(port);
    await s.reached(2);
    expect(s.activity.quiet()).toBe(false);
    gone.req.destroy();
    await settlesAt(s.activity, 1);
    expect(s.activity.quiet()).toBe(true);
    s.held[1]!.end('ok');
    await staying.answered;
    await settlesAt(s.activity, 0);
  });
});
