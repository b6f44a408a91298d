import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeploymentCertificate } from '../../src/tls/certificate.js';
import { runJson, runSvc, startWitnessProcess, type DaemonProcess } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

/** A TLS socket to the witness, resolved once the handshake is done. */
function tlsSocket(url: string, ca: string): Promise<TLSSocket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect({ host: hostname, port: Number(port), ca, servername: 'localhost' }, () => resolve(s));
    s.once('error', reject);
  });
}

/** Resolves when the witness closes the socket, with what it sent before. */
function closedBy(s: TLSSocket): Promise<string> {
  let received = '';
  s.on('data', (d: Buffer) => (received += d.toString()));
  return new Promise((resolve) => {
    s.once('close', () => resolve(received));
    s.on('error', () => undefined);
  });
}

/**
 * Finding 7: the witness listener takes the daemon's time-outs and connection cap, from the
 * same flags. Each wait below ends only when the witness closes the socket; under Node's
 * defaults (a 300 s request time-out, no cap) none of them would within the test's time.
 */
describe('svc witness serve: time-outs and the connection cap (real TLS sockets)', () => {
  const tmp = tmpDir('svc-witness-limits-');
  const file = (name: string) => join(tmp.path, name);
  let ca: string;
  let witness: DaemonProcess;

  beforeAll(async () => {
    await runJson(['witness', 'key', '--key-file', file('w.pem')]);
    const tls = await createDeploymentCertificate({ now: new Date() });
    ca = tls.certPem;
    writeFileSync(file('cert.pem'), tls.certPem);
    writeFileSync(file('key.pem'), tls.keyPem, { mode: 0o600 });
    witness = await startWitnessProcess([
      '--tls-cert',
      file('cert.pem'),
      '--tls-key',
      file('key.pem'),
      '--key-file',
      file('w.pem'),
      '--state',
      file('state.json'),
      '--header-timeout',
      '1s',
      '--request-timeout',
      '2s',
      '--idle-timeout',
      '1s',
      '--max-connections',
      '4',
    ]);
  });
  afterAll(async () => {
    await witness?.stop();
    tmp.cleanup();
  });

  it('cuts a trickled body at the request time-out', { timeout: 20_000 }, async () => {
    const s = await tlsSocket(witness.url, ca);
    const closed = closedBy(s);
    s.write(
      'POST /v1/cosign HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 10000\r\n\r\n{',
    );
    // One byte every 100 ms would take 1,000 s to finish the body.
    const trickle = setInterval(() => s.writable && s.write(' '), 100);
    const received = await closed;
    clearInterval(trickle);
    expect(received).toMatch(/^HTTP\/1\.1 408 |^$/);
  });

  it('cuts trickled headers at the header time-out', { timeout: 20_000 }, async () => {
    const s = await tlsSocket(witness.url, ca);
    const closed = closedBy(s);
    s.write('GET /v1/witness HTTP/1.1\r\nhost: localhost\r\n');
    const trickle = setInterval(() => s.writable && s.write('x-pad: 1\r\n'), 100);
    await closed;
    clearInterval(trickle);
  });

  it(
    'closes a socket that never sends a request, and an idle keep-alive socket',
    { timeout: 20_000 },
    async () => {
      const silent = await tlsSocket(witness.url, ca);
      await closedBy(silent);

      const s = await tlsSocket(witness.url, ca);
      const closed = closedBy(s);
      s.write('GET /v1/witness HTTP/1.1\r\nhost: localhost\r\nconnection: keep-alive\r\n\r\n');
      const received = await closed;
      expect(received).toMatch(/^HTTP\/1\.1 200 /);
      expect(received).toMatch(/keep-alive/i);
    },
  );

  it('refuses sockets over the cap and accepts again once one closes', async () => {
    const held = await Promise.all([1, 2, 3, 4].map(() => tlsSocket(witness.url, ca)));
    await expect(tlsSocket(witness.url, ca)).rejects.toThrow(/socket|ECONNRESET|disconnected/i);
    held[0]!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const again = await tlsSocket(witness.url, ca);
    again.destroy();
    for (const s of held) s.destroy();
  });

  it('refuses a bad limit flag naming it', async () => {
    const r = await runSvc([
      'witness',
      'serve',
      '--allow-insecure-http',
      '--key-file',
      file('w.pem'),
      '--state',
      file('state.json'),
      '--header-timeout',
      '10s',
      '--request-timeout',
      '5s',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/header-timeout: expected a duration no longer than --request-timeout \(5s\)/);
  });
});
