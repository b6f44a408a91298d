import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  runJson,
  startConsoleProcess,
  startDaemonProcess,
  startWitnessProcess,
  type DaemonProcess,
} from '../helpers/cli.js';
import { decisionLoad, decisionWorld, type LoadResult } from '../helpers/decision-world.js';
import { serverPki, type ServerPki } from '../helpers/server-pki.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';

/** The certificate a fresh handshake is served, as Debian's openssl sees it (its SHA-256 fingerprint). */
function servedFingerprint(url: string): string {
  const { port } = new URL(url);
  const r = spawnSync('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-showcerts'], {
    input: '',
    encoding: 'utf8',
    timeout: 10_000,
  });
  const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(r.stdout)?.[0];
  if (pem === undefined) throw new Error(`openssl s_client showed no certificate: ${r.stdout}${r.stderr}`);
  return new X509Certificate(pem).fingerprint256;
}

const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

/** A TLS connection opened now and kept: which certificate it was served, and a request over it. */
function keptConnection(url: string, ca: string): Promise<TLSSocket> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: Number(port), ca, servername: 'localhost' }, () =>
      resolve(s),
    );
    s.once('error', reject);
  });
}

function healthOver(s: TLSSocket): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const onData = (d: Buffer) => {
      got += d.toString();
      if (got.includes('"status":"ok"')) {
        s.off('data', onData);
        resolve(got);
      }
    };
    s.on('data', onData);
    s.write('GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n');
  });
}

/**
 * SIGHUP on the built daemon, over real TLS: the certificate and key files are replaced
 * while decisions run on kept-alive and new connections, and no request fails; handshakes
 * afterwards get the new certificate, a connection opened before keeps the old one, and a
 * bad new certificate is refused with a line naming the file while the last good one stays.
 */
describe('svc daemon start: SIGHUP reloads the TLS certificate without downtime', () => {
  const tmp = tmpDir('svc-e2e-reload-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const certFile = join(tmp.path, 'server-cert.pem');
  const keyFile = join(tmp.path, 'server-key.pem');
  let pki: ServerPki;
  let daemon: DaemonProcess;
  let bot: string;
  let firstCert: string;

  /** Replace a file in one step, as a renewal tool should (rename over it). */
  const replace = (file: string, text: string) => {
    writeFileSync(`${file}.new`, text);
    renameSync(`${file}.new`, file);
  };
  const hup = async (expect: RegExp): Promise<string> => {
    const before = daemon.stderr().length;
    daemon.child.kill('SIGHUP');
    return until(
      `a reload line matching ${expect}`,
      () =>
        daemon
          .stderr()
          .slice(before)
          .split('\n')
          .find((l) => expect.test(l)),
      () => daemon.stderr(),
    );
  };

  beforeAll(async () => {
    bot = (await decisionWorld(env, tmp.path)).bot;
    pki = await serverPki('reload test CA');
    const first = await pki.issue('first');
    firstCert = first.cert;
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, first.key);
    daemon = await startDaemonProcess(['--tls-cert', certFile, '--tls-key', keyFile], env);
  }, 60_000);
  afterAll(async () => {
    await daemon?.stop();
    tmp.cleanup();
  });

  it('swaps the certificate under load: no request fails, new handshakes get the new one, open connections keep theirs', async () => {
    const old = fingerprint(firstCert);
    expect(servedFingerprint(daemon.url)).toBe(old);
    const before = await keptConnection(daemon.url, pki.caPem);

    const stop = { now: false };
    const results: LoadResult[] = [];
    const load = decisionLoad(daemon.url, pki.caPem, bot, { keepAlive: 3, fresh: 2, stop, results });
    await until('decisions under load', () => (results.length >= 30 ? true : undefined));
    const second = await pki.issue('second');
    replace(keyFile, second.key);
    replace(certFile, second.cert);
    const line = await hup(/tls certificate reloaded/);
    const reloadedAt = results.length;
    await until('decisions after the reload', () => (results.length >= reloadedAt + 30 ? true : undefined));
    stop.now = true;
    await load;

    expect(results.filter((r) => r.error !== undefined || r.status !== 200)).toEqual([]);
    expect(line).toContain(certFile);
    expect(line).toContain(fingerprint(second.cert));
    expect(servedFingerprint(daemon.url)).toBe(fingerprint(second.cert));
    // The connection opened before the reload still answers, under the certificate it was given.
    expect(await healthOver(before)).toMatch(/^HTTP\/1\.1 200 /);
    expect(before.getPeerX509Certificate()!.fingerprint256).toBe(old);
    before.destroy();
    // The log (pino, stdout) has the same event, without key material.
    const logged = daemon
      .stdout()
      .split('\n')
      .filter((l) => l.includes('"tls certificate reloaded"'));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({
      cert: certFile,
      fingerprint256: fingerprint(second.cert),
    });
    expect(daemon.stdout()).not.toContain('PRIVATE KEY');
  }, 60_000);

  it('refuses a bad new certificate, keeps serving the last good one, and says why naming the file', async () => {
    const good = servedFingerprint(daemon.url);
    const expired = await pki.issue('expired', { expired: true });
    const notYet = await pki.issue('not-yet', { notYetValid: true });
    const other = await pki.issue('other');
    const cases: { cert: string; key: string; file: string; why: RegExp }[] = [
      { cert: 'not a certificate\n', key: other.key, file: certFile, why: /not a PEM certificate/ },
      { cert: expired.cert, key: expired.key, file: certFile, why: /expired at / },
      { cert: notYet.cert, key: notYet.key, file: certFile, why: /not valid before / },
      {
        cert: other.cert,
        key: (await pki.issue('unrelated')).key,
        file: keyFile,
        why: /the key does not match the certificate/,
      },
    ];
    for (const c of cases) {
      replace(certFile, c.cert);
      replace(keyFile, c.key);
      const line = await hup(/reload refused/);
      expect(line).toContain(`the old certificate is kept: ${c.file}: `);
      expect(line).toMatch(c.why);
      expect(servedFingerprint(daemon.url)).toBe(good);
    }
    const refusals = daemon
      .stdout()
      .split('\n')
      .filter((l) => l.includes('tls certificate reload refused'))
      .map((l) => JSON.parse(l) as { level: number; file: string });
    expect(refusals.map((r) => [r.level, r.file])).toEqual(cases.map((c) => [40, c.file]));
    // Still alive and deciding after every refusal; a good pair afterwards is taken again.
    replace(certFile, other.cert);
    replace(keyFile, other.key);
    await hup(/tls certificate reloaded/);
    expect(servedFingerprint(daemon.url)).toBe(fingerprint(other.cert));
    expect(daemon.child.exitCode).toBeNull();
  }, 60_000);

  it('on plain HTTP a SIGHUP says there is nothing to reload, and the daemon keeps running', async () => {
    const plain = await startDaemonProcess(['--allow-insecure-http'], env);
    try {
      const before = plain.stderr().length;
      plain.child.kill('SIGHUP');
      const line = await until(
        'the plain-HTTP reload line',
        () =>
          /svc daemon: reload: plain HTTP .*no certificate to reload/.exec(plain.stderr().slice(before))?.[0],
      );
      expect(line).toBeDefined();
      const res = await fetch(`${plain.url}/healthz`);
      expect(res.status).toBe(200);
    } finally {
      expect(await plain.stop()).toBe(0);
    }
  });

  it('the console and the witness listeners reload on SIGHUP the same way', async () => {
    const files = (who: string) =>
      [join(tmp.path, `${who}-cert.pem`), join(tmp.path, `${who}-key.pem`)] as const;
    const [cCert, cKey] = files('console');
    const [wCert, wKey] = files('witness');
    for (const [cert, key] of [files('console'), files('witness')]) {
      const pair = await pki.issue('before');
      writeFileSync(cert, pair.cert);
      writeFileSync(key, pair.key);
    }
    await runJson(['witness', 'key', '--key-file', join(tmp.path, 'w.pem')]);
    const listeners: [string, DaemonProcess, string, string][] = [
      ['console', await startConsoleProcess(['--tls-cert', cCert, '--tls-key', cKey], env), cCert, cKey],
      [
        'witness',
        await startWitnessProcess([
          ...['--tls-cert', wCert, '--tls-key', wKey],
          ...['--key-file', join(tmp.path, 'w.pem'), '--state', join(tmp.path, 'w-state.json')],
        ]),
        wCert,
        wKey,
      ],
    ];
    try {
      for (const [who, p, cert, key] of listeners) {
        const next = await pki.issue(`${who} renewed`);
        replace(key, next.key);
        replace(cert, next.cert);
        const before = p.stderr().length;
        p.child.kill('SIGHUP');
        await until(`the ${who} reload line`, () =>
          p.stderr().slice(before).includes(`svc ${who}: tls certificate reloaded from ${cert}`)
            ? true
            : undefined,
        );
        expect(servedFingerprint(p.url)).toBe(fingerprint(next.cert));
        replace(cert, 'not a certificate\n');
        const again = p.stderr().length;
        p.child.kill('SIGHUP');
        await until(`the ${who} refusal line`, () =>
          p.stderr().slice(again).includes(`the old certificate is kept: ${cert}: not a PEM certificate`)
            ? true
            : undefined,
        );
        expect(servedFingerprint(p.url)).toBe(fingerprint(next.cert));
      }
    } finally {
      for (const [, p] of listeners) expect(await p.stop()).toBe(0);
    }
  }, 60_000);
});
