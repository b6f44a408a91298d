import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

/** A TLS socket to the daemon, resolved once the handshake is done. */
function tlsSocket(url: string, ca: Buffer): Promise<TLSSocket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect({ host: hostname, port: Number(port), ca, servername: 'localhost' }, () => resolve(s));
    s.once('error', reject);
  });
}

/** Milliseconds until the server closes the socket, and what it sent before. */
function untilClosed(s: TLSSocket): Promise<{ ms: number; received: string }> {
  const t0 = Date.now();
  let received = '';
  s.on('data', (d: Buffer) => (received += d.toString()));
  return new Promise((resolve) => {
    s.once('close', () => resolve({ ms: Date.now() - t0, received }));
    s.on('error', () => undefined);
  });
}

/** The daemon's listener limits over real TLS sockets, set by the `daemon start` flags. */
describe('svc daemon start: timeouts and the connection cap', () => {
  const tmp = tmpDir('svc-limits-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  let ca: Buffer;
  let token: string;
  let daemon: DaemonProcess;

  beforeAll(async () => {
    const init = await runJson<{ ca_cert: string; admin_token: string }>(
      ['init', '--tenant', 'acme', '--admin', 'alice'],
      env,
    );
    ca = readFileSync(init.ca_cert);
    token = init.admin_token;
    daemon = await startDaemonProcess(
      ['--header-timeout', '1s', '--request-timeout', '2s', '--idle-timeout', '1s', '--max-connections', '4'],
      env,
    );
  });
  afterAll(async () => {
    await daemon?.stop();
    tmp.cleanup();
  });

  it('cuts a trickled body at the request timeout', async () => {
    const s = await tlsSocket(daemon.url, ca);
    const closed = untilClosed(s);
    s.write(
      // Authenticated, so the daemon reads the body (without a credential it answers 401 first).
      `POST /v1/action HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${token}\r\n` +
        'content-type: application/json\r\ncontent-length: 10000\r\n\r\n{',
    );
    // One byte every 100 ms would take 1,000 s to finish the body.
    const trickle = setInterval(() => s.writable && s.write(' '), 100);
    const { ms, received } = await closed;
    clearInterval(trickle);
    expect(ms).toBeLessThan(6_000);
    expect(received).toMatch(/^HTTP\/1\.1 408 |^$/);
  });

  it('cuts trickled headers at the header timeout', async () => {
    const s = await tlsSocket(daemon.url, ca);
    const closed = untilClosed(s);
    s.write('GET /healthz HTTP/1.1\r\nhost: localhost\r\n');
    const trickle = setInterval(() => s.writable && s.write('x-pad: 1\r\n'), 100);
    const { ms } = await closed;
    clearInterval(trickle);
    expect(ms).toBeLessThan(5_000);
  });

  it('closes a connection that never sends a request, and an idle keep-alive socket', async () => {
    const silent = await tlsSocket(daemon.url, ca);
    expect((await untilClosed(silent)).ms).toBeLessThan(5_000);

    const s = await tlsSocket(daemon.url, ca);
    const closed = untilClosed(s);
    s.write('GET /healthz HTTP/1.1\r\nhost: localhost\r\nconnection: keep-alive\r\n\r\n');
    const { ms, received } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).toMatch(/keep-alive/i);
    expect(ms).toBeLessThan(5_000);
  });

  it('refuses connections over the cap and accepts again once one closes', async () => {
    const held = await Promise.all([1, 2, 3, 4].map(() => tlsSocket(daemon.url, ca)));
    await expect(tlsSocket(daemon.url, ca)).rejects.toThrow(/socket|ECONNRESET|disconnected/i);
    held[0]!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const again = await tlsSocket(daemon.url, ca);
    again.destroy();
    for (const s of held) s.destroy();
  });

  it('refuses a bad limit flag naming it', async () => {
    const r = await runSvc(
      ['daemon', 'start', '--listen', '127.0.0.1:0', '--header-timeout', '10s', '--request-timeout', '5s'],
      env,
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/header-timeout: expected a duration no longer than --request-timeout \(5s\)/);
    const bad = await runSvc(['daemon', 'start', '--listen', '127.0.0.1:0', '--idle-timeout', 'soon'], env);
    expect(bad.stderr).toMatch(/idle-timeout: expected a duration/);
  });
});
