import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, spkiPin, startConsoleProcess, type ConsoleProcess } from '../helpers/browser.js';
import { runJson } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * `svc console start --tls-cert/--tls-key` with an operator's own certificate: a leaf for
 * 127.0.0.1 signed by a private CA made here with openssl, served with its chain. A browser
 * that trusts that CA (and nothing else) signs in; one that trusts only the deployment
 * certificate `svc init` made is refused, so the console served the operator's certificate.
 */
describe('the console in chromium with an operator certificate from a private CA', () => {
  const tmp = tmpDir('svc-e2e-console-tls-');
  const home = join(tmp.path, 'home');
  const file = (name: string) => join(tmp.path, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  let consoleProc: ConsoleProcess;
  let adminToken: string;
  let deploymentCert: string;

  beforeAll(async () => {
    const init = await runJson<{ admin_token: string; ca_cert: string }>(
      ['init', '--tenant', 'acme', '--admin', 'alice'],
      { SVC_HOME: home },
    );
    adminToken = init.admin_token;
    deploymentCert = readFileSync(init.ca_cert, 'utf8');
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl(
      ...['req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2'],
      ...['-subj', '/CN=Acme Operations CA'],
      ...['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign'],
    );
    openssl(
      'req',
      ...ec,
      '-keyout',
      file('console.key'),
      '-out',
      file('console.csr'),
      '-subj',
      '/CN=console',
    );
    writeFileSync(
      file('leaf.ext'),
      'basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n',
    );
    openssl(
      ...['x509', '-req', '-in', file('console.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key')],
      ...['-CAcreateserial', '-days', '1', '-extfile', file('leaf.ext'), '-out', file('console.pem')],
    );
    // the chain in the certificate file, as docs/console.md asks
    writeFileSync(
      file('chain.pem'),
      readFileSync(file('console.pem'), 'utf8') + readFileSync(file('ca.pem'), 'utf8'),
    );
    consoleProc = await startConsoleProcess(
      ['--tls-cert', file('chain.pem'), '--tls-key', file('console.key')],
      {
        SVC_HOME: home,
      },
    );
  });

  afterAll(async () => {
    await consoleProc?.stop();
    tmp.cleanup();
  });

  it('signs in in a browser that trusts the private CA', async () => {
    const browser = await launchChromium(spkiPin(readFileSync(file('ca.pem'))));
    try {
      const page = await browser.context.newPage();
      await page.goto(consoleProc.url);
      await page.locator('#token').fill(adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(await browser.context.cookies(consoleProc.url)).toEqual([
        expect.objectContaining({ name: '__Host-svc_session', secure: true }),
      ]);
    } finally {
      await browser.close();
    }
  });

  it('is refused by a browser that trusts only the deployment certificate', async () => {
    const browser = await launchChromium(spkiPin(deploymentCert));
    try {
      const page = await browser.context.newPage();
      await expect(page.goto(consoleProc.url)).rejects.toThrow(/ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await browser.close();
    }
  });
});
