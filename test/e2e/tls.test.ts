import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';

/** One handshake by Debian's openssl: did it complete, and with which protocol and suite. */
function handshake(url: string, args: string[]): { ok: boolean; cipher: string } {
  const { port } = new URL(url);
  const r = spawnSync(
    'openssl',
    ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', 'localhost', ...args],
    { input: '', encoding: 'utf8', timeout: 10_000 },
  );
  const m = /Cipher is (\S+)/.exec(r.stdout);
  const cipher = m?.[1] ?? '(NONE)';
  return { ok: r.status === 0 && cipher !== '(NONE)', cipher };
}

describe('TLS: AEAD suites only, and the deployment certificate is a leaf', () => {
  const tmp = tmpDir('svc-tls-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  let caPath: string;
  let daemon: DaemonProcess;

  beforeAll(async () => {
    caPath = (await runJson<{ ca_cert: string }>(['init', '--tenant', 'acme', '--admin', 'alice'], env))
      .ca_cert;
    daemon = await startDaemonProcess([], env);
  });
  afterAll(async () => {
    await daemon?.stop();
    tmp.cleanup();
  });

  it('TLS 1.2 refuses CBC and CCM8 suites and accepts ECDHE with AES-GCM or ChaCha20-Poly1305', () => {
    const tls12 = (cipher: string) =>
      handshake(daemon.url, ['-tls1_2', '-cipher', cipher, '-CAfile', caPath, '-verify_return_error']);
    for (const cbc of [
      'ECDHE-ECDSA-AES128-SHA',
      'ECDHE-ECDSA-AES256-SHA',
      'ECDHE-ECDSA-AES128-SHA256',
      'ECDHE-ECDSA-AES256-SHA384',
      'ECDHE-ECDSA-AES128-CCM8',
      'ECDHE-ECDSA-AES256-CCM8',
      'ECDHE-ECDSA-AES128-CCM',
    ]) {
      expect(tls12(cbc), cbc).toEqual({ ok: false, cipher: '(NONE)' });
    }
    for (const aead of [
      'ECDHE-ECDSA-AES128-GCM-SHA256',
      'ECDHE-ECDSA-AES256-GCM-SHA384',
      'ECDHE-ECDSA-CHACHA20-POLY1305',
    ]) {
      expect(tls12(aead), aead).toEqual({ ok: true, cipher: aead });
    }
  });

  it('TLS 1.3 offers its AEAD suites (not CCM), and TLS 1.1 is refused', () => {
    const tls13 = handshake(daemon.url, ['-tls1_3', '-CAfile', caPath, '-verify_return_error']);
    expect(tls13.ok).toBe(true);
    expect(tls13.cipher).toMatch(/^TLS_(AES_128_GCM_SHA256|AES_256_GCM_SHA384|CHACHA20_POLY1305_SHA256)$/);
    const ccm = handshake(daemon.url, [
      '-tls1_3',
      '-ciphersuites',
      'TLS_AES_128_CCM_SHA256:TLS_AES_128_CCM_8_SHA256',
    ]);
    expect(ccm.ok).toBe(false);
    expect(handshake(daemon.url, ['-tls1_1']).ok).toBe(false);
  });

  it('the certificate svc init makes is a leaf: cA=false, digitalSignature only, serverAuth only', async () => {
    const pem = readFileSync(caPath);
    expect(new X509Certificate(pem).ca).toBe(false);
    const cert = new x509.X509Certificate(pem);
    const bc = cert.getExtension(x509.BasicConstraintsExtension)!;
    expect(bc.ca).toBe(false);
    expect(bc.critical).toBe(true);
    const ku = cert.getExtension(x509.KeyUsagesExtension)!;
    expect(ku.usages).toBe(x509.KeyUsageFlags.digitalSignature);
    expect(ku.critical).toBe(true);
    expect(cert.getExtension(x509.ExtendedKeyUsageExtension)!.usages).toEqual([
      x509.ExtendedKeyUsage.serverAuth,
    ]);
    const san = cert.getExtension(x509.SubjectAlternativeNameExtension)!;
    expect(san.names.toJSON().map((n) => n.value)).toEqual(['localhost', '127.0.0.1', '::1']);
    // Clients that retain it as their only anchor still connect (undici, Node's TLS).
    expect((await call(`${daemon.url}/healthz`, { ca: pem })).status).toBe(200);
  });

  it('a data dir made before keeps working with its CA certificate, and the daemon says to regenerate it', async () => {
    const old = tmpDir('svc-tls-old-');
    const oldEnv = { SVC_HOME: join(old.path, 'home') };
    try {
      const init = await runJson<{ ca_cert: string }>(
        ['init', '--tenant', 'acme', '--admin', 'alice'],
        oldEnv,
      );
      const key = join(old.path, 'home', 'tls', 'deployment-key.pem');
      // What an older `svc init` made: a self-signed CA certificate for the same names.
      const made = spawnSync('openssl', [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '30',
        '-subj',
        '/CN=svc deployment',
        '-keyout',
        key,
        '-out',
        init.ca_cert,
        '-addext',
        'basicConstraints=critical,CA:TRUE,pathlen:0',
        '-addext',
        'keyUsage=critical,digitalSignature,keyCertSign',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
      ]);
      expect(made.status).toBe(0);
      const legacy = await startDaemonProcess([], oldEnv);
      try {
        const r = await call(`${legacy.url}/healthz`, { ca: readFileSync(init.ca_cert) });
        expect(r.status).toBe(200);
        expect(legacy.stdout()).toMatch(/the deployment certificate is a CA certificate/);
      } finally {
        await legacy.stop();
      }
    } finally {
      old.cleanup();
    }
  });
});
