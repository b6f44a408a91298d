import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';

/** The built binary over real sockets: init, TLS, tokens, plain-HTTP refusal, mutual TLS. */
describe('svc daemon start (built binary, real TLS)', () => {
  const tmp = tmpDir('svc-e2e-');
  const home = join(tmp.path, 'home');
  const env = { SVC_HOME: home };
  let init: Record<string, string>;
  let ca: Buffer;
  let daemon: DaemonProcess;

  beforeAll(async () => {
    init = await runJson(['init', '--tenant', 'acme', '--admin', 'alice'], env);
    ca = readFileSync(init.ca_cert as string);
    await runJson(
      ['actor', 'add', '--tenant', 'acme', '--id', 'bot', '--kind', 'agent', '--manager', 'alice'],
      env,
    );
    daemon = await startDaemonProcess([], env);
  });
  afterAll(async () => {
    await daemon?.stop();
    tmp.cleanup();
  });

  it('init returns the fields scripts rely on', () => {
    for (const k of ['tenant_id', 'admin_id', 'admin_token', 'data_dir', 'public_key', 'key_id', 'ca_cert'])
      expect(init).toHaveProperty(k);
    expect(init.key_id).toMatch(/^ed25519-[0-9a-f]{16}$/);
    expect(Buffer.from(init.public_key as string, 'base64')).toHaveLength(32);
  });

  it('serves TLS with the deployment certificate and answers /healthz', async () => {
    expect(daemon.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect((await call(`${daemon.url}/healthz`, { ca })).body).toEqual({ status: 'ok' });
    expect((await call(`${daemon.url}/readyz`, { ca })).body).toEqual({
      status: 'ready',
      details: {
        witnesses: { configured: 0, failing: 0, refused: 0 },
        timestamps: { authority: 'noop', failing: false },
        notifications: { pending: 0, dead: 0, disabled_destinations: 0 },
      },
    });
    // A client that does not trust the deployment certificate refuses the connection.
    await expect(call(`${daemon.url}/healthz`)).rejects.toThrow(/self-signed|certificate/i);
  });

  it('authenticates with either header; wrong, expired and revoked tokens get 401', async () => {
    const bot = await runJson<{ token: string; token_id: string }>(
      ['token', 'issue', '--tenant', 'acme', '--actor', 'bot'],
      env,
    );
    for (const headers of [{ authorization: `Bearer ${bot.token}` }, { 'x-svc-token': bot.token }] as Record<
      string,
      string
    >[]) {
      const r = await call(`${daemon.url}/v1/capabilities`, { ca, headers });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ tenant_id: 'acme', actor_id: 'bot', capabilities: [] });
    }
    const wrong = await call(`${daemon.url}/v1/capabilities`, {
      ca,
      headers: { authorization: `Bearer ${bot.token.slice(0, -1)}x` },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({
      code: 'unauthenticated',
      reason: expect.any(String),
      remedy: expect.any(String),
    });

    const brief = await runJson<{ token: string }>(
      ['token', 'issue', '--tenant', 'acme', '--actor', 'bot', '--ttl', '1s'],
      env,
    );
    await new Promise((r) => setTimeout(r, 1100));
    const expired = await call(`${daemon.url}/v1/capabilities`, {
      ca,
      headers: { 'x-svc-token': brief.token },
    });
    expect(expired.status).toBe(401);
    expect(expired.body.reason).toBe('the token is expired');

    // Revocation by the CLI, on the data dir, while the daemon runs: refused on the next request.
    await runJson(['token', 'revoke', '--tenant', 'acme', '--id', bot.token_id], env);
    const revoked = await call(`${daemon.url}/v1/capabilities`, {
      ca,
      headers: { 'x-svc-token': bot.token },
    });
    expect(revoked.status).toBe(401);
    expect(revoked.body.reason).toBe('the token is revoked');
  });

  it('logs requests as JSON with a request id and never the token', async () => {
    await call(`${daemon.url}/v1/capabilities`, {
      ca,
      headers: { authorization: `Bearer ${init.admin_token}` },
    });
    await new Promise((r) => setTimeout(r, 200));
    const lines = daemon
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.some((l) => typeof l.reqId === 'string')).toBe(true);
    expect(daemon.stdout()).not.toContain(init.admin_token);
    expect(daemon.stdout()).not.toContain((init.admin_token as string).slice(22));
  });

  it('a plain-HTTP request to the TLS listener gets no answer', async () => {
    await expect(call(daemon.url.replace('https:', 'http:') + '/healthz')).rejects.toThrow();
  });

  it('refuses to start on plain HTTP without --allow-insecure-http, and says so', async () => {
    const other = tmpDir('svc-e2e-http-');
    try {
      const home2 = join(other.path, 'h');
      await runJson(['init', '--tenant', 't', '--admin', 'a'], { SVC_HOME: home2 });
      renameSync(join(home2, 'tls'), join(home2, 'tls-away'));
      const refused = await runSvc(['daemon', 'start', '--listen', '127.0.0.1:0'], { SVC_HOME: home2 });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/refusing to serve plain HTTP/);
      expect(refused.stderr).toMatch(/--allow-insecure-http/);
      // The spec's single-dash spellings work too.
      const plain = await startDaemonProcess(['-allow-insecure-http', '-listen', '127.0.0.1:0'], {
        SVC_HOME: home2,
      });
      try {
        expect(plain.url).toMatch(/^http:\/\//);
        expect(plain.stderr()).toMatch(/warning: serving plain HTTP/);
        expect((await call(`${plain.url}/healthz`)).body).toEqual({ status: 'ok' });
      } finally {
        expect(await plain.stop()).toBe(0);
      }
    } finally {
      other.cleanup();
    }
  });

  it('mutual TLS: a mapped client certificate authenticates; bearer tokens and foreign certificates are refused', async () => {
    const pki = join(tmp.path, 'pki');
    const sh = (cmd: string) => execFileSync('bash', ['-ec', cmd], { cwd: tmp.path, stdio: 'pipe' });
    sh(`mkdir -p ${pki} && cd ${pki}
      for ca in ca rogue; do
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $ca.key -out $ca.pem -days 1 \
          -subj "/CN=$ca client CA" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign
      done
      issue() { openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $1.key -out $1.csr -subj "$2"
        printf 'extendedKeyUsage=clientAuth\\n' > ext.cnf
        openssl x509 -req -in $1.csr -CA $3.pem -CAkey $3.key -CAcreateserial -out $1.pem -days 1 -extfile ext.cnf; }
      issue billing "/CN=billing/O=Acme" ca
      issue stranger "/CN=stranger/O=Acme" ca
      issue forged "/CN=billing/O=Acme" rogue`);
    await runJson(
      [
        'actor',
        'add',
        '--tenant',
        'acme',
        '--id',
        'billing',
        '--kind',
        'service',
        '--cert-subject',
        'CN=billing, O=Acme',
      ],
      env,
    );
    const mtls = await startDaemonProcess(['--client-ca', join(pki, 'ca.pem')], env);
    const file = (n: string) => readFileSync(join(pki, n));
    try {
      expect(mtls.stderr()).toMatch(/mutual TLS/);
      const ok = await call(`${mtls.url}/v1/capabilities`, {
        ca,
        cert: file('billing.pem'),
        key: file('billing.key'),
      });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ tenant_id: 'acme', actor_id: 'billing', capabilities: [] });

      const bearer = await call(`${mtls.url}/v1/capabilities`, {
        ca,
        headers: { authorization: `Bearer ${init.admin_token}` },
      });
      expect(bearer.status).toBe(401);
      expect(bearer.body.reason).toMatch(/bearer tokens are refused/);
      const both = await call(`${mtls.url}/v1/capabilities`, {
        ca,
        cert: file('billing.pem'),
        key: file('billing.key'),
        headers: { 'x-svc-token': init.admin_token as string },
      });
      expect(both.status).toBe(401);

      const none = await call(`${mtls.url}/v1/capabilities`, { ca });
      expect(none.status).toBe(401);
      const unmapped = await call(`${mtls.url}/v1/capabilities`, {
        ca,
        cert: file('stranger.pem'),
        key: file('stranger.key'),
      });
      expect(unmapped.status).toBe(401);
      expect(unmapped.body.reason).toMatch(/no registered actor/);
      const forged = await call(`${mtls.url}/v1/capabilities`, {
        ca,
        cert: file('forged.pem'),
        key: file('forged.key'),
      });
      expect(forged.status).toBe(401);
      expect((await call(`${mtls.url}/healthz`, { ca })).status).toBe(200);
    } finally {
      await mtls.stop();
    }
  });

  it('stops gracefully on SIGTERM', async () => {
    const d = await startDaemonProcess([], env);
    const code = await d.stop();
    expect(d.stderr()).toMatch(/stopping/);
    expect(code).toBe(0);
    expect(d.stderr()).toMatch(/stopping \(SIGTERM\)[\s\S]*stopped/);
  });
});
