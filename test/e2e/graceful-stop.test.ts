import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { decisionBody, decisionLoad, decisionWorld, type LoadResult } from '../helpers/decision-world.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';

function tlsSocket(url: string, ca: Buffer): Promise<TLSSocket> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: Number(port), ca, servername: 'localhost' }, () =>
      resolve(s),
    );
    s.once('error', reject);
  });
}

/** Everything the daemon sends on a socket until it closes it. */
function untilClosed(s: TLSSocket): Promise<string> {
  let received = '';
  s.on('data', (d: Buffer) => (received += d.toString()));
  s.on('error', () => undefined);
  return new Promise((resolve) => s.once('close', () => resolve(received)));
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

function parseAnswer(raw: string): Answer {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
  }
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: JSON.parse(body) as Record<string, unknown>,
  };
}

/** A decision whose request the daemon has begun to read: headers sent, body not finished. */
async function heldDecision(url: string, ca: Buffer, bot: string, step: string) {
  const s = await tlsSocket(url, ca);
  const body = decisionBody(step);
  s.write(
    `POST /v1/action HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${bot}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
  );
  const closed = untilClosed(s);
  return { finish: () => (s.write(body.slice(10)), closed), closed };
}

const exitOf = (d: DaemonProcess) =>
  new Promise<number | null>((resolve) =>
    d.child.exitCode !== null ? resolve(d.child.exitCode) : d.child.once('close', (code) => resolve(code)),
  );

async function stopping(d: DaemonProcess): Promise<void> {
  await until(
    'the stopping line',
    () => (/svc daemon stopping/.test(d.stderr()) ? true : undefined),
    d.stderr,
  );
}

/**
 * SIGTERM on the built daemon under load, over real TLS. What a client can rely on, asserted
 * exactly: (1) every decision answered 2xx is in the journal; (2) a request the daemon had
 * begun to read when the signal came (here: headers sent, body not) is answered, with
 * `Connection: close`; (3) `/readyz` on a connection opened before the signal answers 503
 * `draining`; (4) new connections are refused once the drain begins; (5) a load request
 * that got no answer was never decided (its step is not in the journal's intents): a
 * connection idle at the signal is closed, and a request written into it at that instant
 * is lost unread, the race every HTTP/1.1 keep-alive close has, never after a decision.
 */
describe('svc daemon start: SIGTERM drains, a second signal or the deadline stops hard', () => {
  const tmp = tmpDir('svc-e2e-stop-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  let ca: Buffer;
  let bot: string;
  const live: DaemonProcess[] = [];
  const start = async (args: string[] = []) => {
    const d = await startDaemonProcess(args, env);
    live.push(d);
    return d;
  };

  beforeAll(async () => {
    const world = await decisionWorld(env, tmp.path);
    ca = readFileSync(world.caCert);
    bot = world.bot;
  }, 60_000);
  afterAll(() => {
    for (const d of live) if (d.child.exitCode === null) d.child.kill('SIGKILL');
    tmp.cleanup();
  });

  it('under load: unready at once, stops accepting, answers what it began, loses no acknowledged decision', async () => {
    const daemon = await start();
    const exited = exitOf(daemon);
    // A readiness probe whose request is half-sent when the signal comes: its connection is busy, not idle.
    const probe = await tlsSocket(daemon.url, ca);
    probe.write('GET /readyz HTTP/1.1\r\nhost: localhost\r\n');
    const probeClosed = untilClosed(probe);
    const held = await heldDecision(daemon.url, ca, bot, 'held');
    const stop = { now: false };
    const results: LoadResult[] = [];
    const load = decisionLoad(daemon.url, ca, bot, { keepAlive: 4, fresh: 2, stop, results });
    await until('decisions under load', () => (results.length >= 40 ? true : undefined));

    daemon.child.kill('SIGTERM');
    await stopping(daemon);
    probe.write('\r\n');
    const ready = parseAnswer(await probeClosed);
    expect(ready.status).toBe(503);
    expect(ready.headers.connection).toBe('close');
    expect(ready.body).toEqual({
      code: 'unavailable',
      reason: expect.stringMatching(/^draining: /) as string,
    });
    await until('new connections refused', () =>
      tlsSocket(daemon.url, ca).then(
        (s) => void s.destroy(),
        (err: Error) => (/ECONNREFUSED/.test(err.message) ? true : undefined),
      ),
    );
    const decided = parseAnswer(await held.finish());
    expect(decided.status).toBe(200);
    expect(decided.headers.connection).toBe('close');
    expect(decided.body.decision).toBe('allowed');
    stop.now = true;
    await load;
    expect(await exited).toBe(0);
    expect(daemon.stderr()).toMatch(/svc daemon stopped\n/);

    const acked = results.filter((r) => r.status !== undefined && r.status >= 200 && r.status < 300);
    expect(acked.length).toBeGreaterThanOrEqual(40);
    // Answers during the drain were decisions too (served, told to close), never a bare refusal.
    expect(results.filter((r) => r.status !== undefined && r.status !== 200)).toEqual([]);
    const lost = results.filter((r) => r.error !== undefined && !/ECONNREFUSED/.test(r.error));
    const db = new Database(join(env.SVC_HOME, 'svc.db'), { readonly: true });
    try {
      const journaled = db
        .prepare("SELECT count(*) FROM journal WHERE tenant_id = 'acme' AND receipt_id = ?")
        .pluck();
      for (const r of [
        ...acked,
        { step: 'held', receiptId: (decided.body.receipt as { receipt_id: string }).receipt_id },
      ]) {
        expect(journaled.get(r.receiptId), r.step).toBe(1);
      }
      const intent = db.prepare("SELECT count(*) FROM intents WHERE tenant_id = 'acme' AND step = ?").pluck();
      for (const r of lost) expect(intent.get(r.step), `${r.step}: ${r.error}`).toBe(0);
    } finally {
      db.close();
    }
  }, 60_000);

  it('a second signal during the drain stops hard, saying how many requests were cut off', async () => {
    const daemon = await start();
    const exited = exitOf(daemon);
    const held = await heldDecision(daemon.url, ca, bot, 'cut-by-signal');
    daemon.child.kill('SIGTERM');
    await stopping(daemon);
    daemon.child.kill('SIGTERM');
    expect(await exited).toBe(1);
    expect(daemon.stderr()).toMatch(/svc daemon stopped hard \(a second SIGTERM\): 1 request cut off\n/);
    expect(await held.closed).toBe('');
  });

  it('--stop-deadline stops hard when in-flight requests outlast it', async () => {
    const daemon = await start(['--stop-deadline', '1s']);
    const exited = exitOf(daemon);
    const held = await heldDecision(daemon.url, ca, bot, 'cut-by-deadline');
    daemon.child.kill('SIGTERM');
    expect(await exited).toBe(1);
    expect(daemon.stderr()).toMatch(
      /svc daemon stopped hard \(the stop deadline \(1s\) passed\): 1 request cut off\n/,
    );
    expect(await held.closed).toBe('');
  });
});
