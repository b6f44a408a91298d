import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleProcess } from '../helpers/browser.js';
import { runJson, runSvc } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { pngBytes, SVG_TEXT } from '../helpers/images.js';
import { tmpDir } from '../helpers/tmp.js';

/** `svc theme install` and `svc console start` as an operator runs them (the built binary). */
describe('theme install and console start (built binary)', () => {
  const tmp = tmpDir('svc-e2e-theme-');
  const home = join(tmp.path, 'home');
  const brand = join(tmp.path, 'brand');
  const env = { SVC_HOME: home };
  const theme = (logo: string) => {
    const file = join(tmp.path, `theme-${logo.replace(/\W/g, '_')}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        appearance: 'dark',
        colors: {
          bg: '#0b1020',
          surface: '#131a2e',
          surface2: '#1a2340',
          text: '#e8ecf6',
          muted: '#a3acc2',
          dim: '#6f7891',
          line: '#2a3453',
          accent: '#ffb020',
          'accent-soft': '#3a2e10',
          ok: '#3fb950',
          warn: '#d29922',
          bad: '#f85149',
        },
        fonts: {
          sans: { family: 'system-ui, sans-serif', url: null },
          mono: { family: 'ui-monospace, monospace', url: null },
        },
        logo: { url: logo, alt: 'Acme' },
      }),
    );
    return file;
  };

  beforeAll(async () => {
    await runJson(['init', '--tenant', 'acme', '--admin', 'alice'], env);
    mkdirSync(brand);
    writeFileSync(join(brand, 'logo.png'), pngBytes());
    writeFileSync(join(brand, 'logo-svg.png'), SVG_TEXT);
  });
  afterAll(() => tmp.cleanup());

  it('installs a theme: the logo is placed content-addressed and the theme stored as revision 1', async () => {
    const r = await runJson<{ revision: number; assets: { url: string; content_type: string }[] }>(
      ['theme', 'install', theme('/tenant-assets/logo.png'), '--tenant', 'acme', '--assets', brand],
      env,
    );
    expect(r.revision).toBe(1);
    expect(r.assets).toEqual([
      expect.objectContaining({
        content_type: 'image/png',
        url: expect.stringMatching(/^\/tenant-assets\/[0-9a-f]{64}\.png$/),
      }),
    ]);
  });

  it.each([
    ['/tenant-assets/logo-svg.png', 'svg_refused', /SVG can carry executable markup/],
    ['https://cdn.example.com/logo.png', 'asset_url_refused', /external URLs are refused/],
    ['/tenant-assets/%2e%2e/svc.db', 'asset_url_refused', /traversal/],
  ])('refuses logo %s with exit 2 and the field named', async (url, code, reason) => {
    const r = await runSvc(
      ['theme', 'install', theme(url), '--tenant', 'acme', '--assets', brand, '--json'],
      env,
    );
    expect(r.code).toBe(2);
    const body = JSON.parse(r.stdout).error;
    expect(body).toMatchObject({ code, field: 'logo.url' });
    expect(body.reason).toMatch(reason);
  });

  it('refuses to serve plain HTTP without a certificate unless asked, like the daemon', async () => {
    const r = await runSvc(['console', 'start', '--listen', '127.0.0.1:0'], {
      SVC_HOME: join(tmp.path, 'nowhere'),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing to serve plain HTTP/);
  });

  it('serves plain HTTP with --allow-insecure-http (no Secure cookie), and stops on SIGTERM', async () => {
    const c = await startConsoleProcess(['--allow-insecure-http'], env);
    try {
      expect(c.url).toMatch(/^http:\/\//);
      const theme = await call(`${c.url}/api/theme`);
      expect(theme.status).toBe(401);
      const page = await call(`${c.url}/api/openapi.json`);
      expect(page.status).toBe(200);
      expect(page.body.openapi).toBe('3.1.0');
    } finally {
      expect(await c.stop()).toBe(0);
    }
  });

  it('mutual TLS: sign-in takes the client certificate of a registered human; tokens are refused', async () => {
    const pki = join(tmp.path, 'pki');
    execFileSync(
      'bash',
      [
        '-ec',
        `mkdir -p ${pki} && cd ${pki}
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 1 \
          -subj "/CN=client CA" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout carol.key -out carol.csr -subj "/CN=carol/O=Acme"
        printf 'extendedKeyUsage=clientAuth\\n' > ext.cnf
        openssl x509 -req -in carol.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out carol.pem -days 1 -extfile ext.cnf`,
      ],
      { stdio: 'pipe' },
    );
    await runJson(
      [
        'actor',
        'add',
        '--tenant',
        'acme',
        '--id',
        'carol',
        '--kind',
        'human',
        '--role',
        'operator',
        '--cert-subject',
        'CN=carol, O=Acme',
      ],
      env,
    );
    const ca = readFileSync(join(home, 'tls', 'deployment-cert.pem'));
    const c = await startConsoleProcess(['--client-ca', join(pki, 'ca.pem')], env);
    try {
      const cert = {
        ca,
        cert: readFileSync(join(pki, 'carol.pem')),
        key: readFileSync(join(pki, 'carol.key')),
      };
      const signIn = await call(`${c.url}/api/session`, { ...cert, method: 'POST', body: {} });
      expect(signIn.status).toBe(200);
      expect(signIn.body).toMatchObject({ tenant_id: 'acme', actor_id: 'carol', roles: ['operator'] });
      const cookie = String(signIn.headers['set-cookie']).split(';')[0] as string;
      expect((await call(`${c.url}/api/settings/appearance`, { ca, headers: { cookie } })).status).toBe(200);
      const token = (
        await runJson<{ token: string }>(['token', 'issue', '--tenant', 'acme', '--actor', 'carol'], env)
      ).token;
      const bearer = await call(`${c.url}/api/session`, {
        ca,
        method: 'POST',
        body: {},
        headers: { authorization: `Bearer ${token}` },
      });
      expect(bearer.status).toBe(401);
      expect((await call(`${c.url}/api/session`, { ca, method: 'POST', body: {} })).status).toBe(401);
    } finally {
      expect(await c.stop()).toBe(0);
    }
  });
});
