import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientSettings, DaemonClient } from '../../../src/cli/daemon-client.js';
import { pageStream } from '../../../src/cli/list-output.js';
import { SvcClient } from '../../../src/sdk/client.js';
import { exitCodeFor } from '../../../src/cli/exit-codes.js';
import type { SvcError } from '../../../src/core/errors.js';
import type { DaemonAddress } from '../../../src/store/daemon-address.js';
import { createDeploymentCertificate } from '../../../src/tls/certificate.js';
import { tmpDir } from '../../helpers/tmp.js';

const env = { SVC_TOKEN: 'svct_0000000000000000_secret' };

/** The error a call ends in; a call that succeeds fails the test. */
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as SvcError;
  }
  throw new Error('expected a failure');
};

describe('daemon client settings', () => {
  it('defaults the endpoint, refuses a missing token and an unreadable CA, saying what to do', () => {
    // The spec's SVC_ENDPOINT default, the same as the SDKs'.
    expect(clientSettings({}, env)).toEqual({
      endpoint: 'http://127.0.0.1:8090',
      token: env.SVC_TOKEN,
      source: 'the default',
    });
    expect(clientSettings({}, { ...env, SVC_ENDPOINT: 'https://d.example:8443/' }).endpoint).toBe(
      'https://d.example:8443',
    );
    expect(clientSettings({ endpoint: 'http://h:1' }, { ...env, SVC_ENDPOINT: 'http://x:2' }).endpoint).toBe(
      'http://h:1',
    );
    expect(() => clientSettings({}, {})).toThrow(/SVC_TOKEN is not set/);
    expect(() => clientSettings({}, { SVC_TOKEN: '  ' })).toThrow(/SVC_TOKEN is not set/);
    expect(() => clientSettings({ endpoint: 'ftp://h' }, env)).toThrow(/endpoint: expected/);
    expect(() => clientSettings({ endpoint: 'not a url' }, env)).toThrow(/endpoint: expected/);
    expect(() => clientSettings({ 'ca-cert': '/nonexistent/ca.pem' }, env)).toThrow(
      /ca-cert: \/nonexistent\/ca\.pem does not exist/,
    );
    // a CA "file" that is a device or a directory is refused before it is read
    expect(() => clientSettings({ 'ca-cert': '/dev/zero' }, env)).toThrow(
      /ca-cert: \/dev\/zero is a character device/,
    );
    expect(() => clientSettings({ 'ca-cert': '/tmp' }, env)).toThrow(/ca-cert: \/tmp is a directory/);
  });
});

describe('daemon client settings next to a local daemon', () => {
  const tmp = tmpDir('svc-client-');
  afterAll(() => tmp.cleanup());
  const cert = join(tmp.path, 'deployment-cert.pem');
  const other = join(tmp.path, 'other-cert.pem');
  writeFileSync(cert, 'DEPLOYMENT PEM');
  writeFileSync(other, 'OTHER PEM');
  const address: DaemonAddress = {
    url: 'https://127.0.0.1:41234',
    tls: true,
    mutual_tls: false,
    ca_cert: cert,
    pid: 1,
    started_at: '2026-01-01T00:00:00.000Z',
  };
  const local = { address, addressFile: '/d/daemon.json', deploymentCert: cert };

  it('uses the recorded address and its certificate when nothing else is given', () => {
    expect(clientSettings({}, env, local)).toEqual({
      endpoint: 'https://127.0.0.1:41234',
      token: env.SVC_TOKEN,
      ca: 'DEPLOYMENT PEM',
      source: "recorded in /d/daemon.json by the daemon's last start",
    });
  });

  it('lets SVC_ENDPOINT and SVC_CA_CERT (and the flags) override it', () => {
    const elsewhere = clientSettings({}, { ...env, SVC_ENDPOINT: 'https://d.example:8443' }, local);
    // Another daemon's endpoint is never given the local daemon's certificate.
    expect(elsewhere).toEqual({ endpoint: 'https://d.example:8443', token: env.SVC_TOKEN });
    expect(clientSettings({}, { ...env, SVC_ENDPOINT: 'https://127.0.0.1:41234/' }, local).ca).toBe(
      'DEPLOYMENT PEM',
    );
    expect(clientSettings({}, { ...env, SVC_CA_CERT: other }, local).ca).toBe('OTHER PEM');
    expect(clientSettings({ 'ca-cert': other, endpoint: 'http://h:1' }, env, local)).toEqual({
      endpoint: 'http://h:1',
      token: env.SVC_TOKEN,
      ca: 'OTHER PEM',
    });
  });

  it("trusts the deployment certificate for the daemon's default TLS address when no daemon recorded one", () => {
    const daemonDefault = { ...env, SVC_ENDPOINT: 'https://127.0.0.1:8090' };
    expect(clientSettings({}, daemonDefault, { deploymentCert: cert }).ca).toBe('DEPLOYMENT PEM');
    // The plain-HTTP client default never carries a certificate.
    expect(clientSettings({}, env, { deploymentCert: cert }).ca).toBe(undefined);
    expect(clientSettings({}, env, { address: { ...address, ca_cert: null }, deploymentCert: cert }).ca).toBe(
      undefined,
    );
  });
});

describe('daemon client over HTTP', () => {
  let server: Server;
  let base: string;
  const seen: { url?: string; auth?: string; body?: string } = {};
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        Object.assign(seen, { url: req.url, auth: req.headers.authorization, body });
        // The SDK's client asks its own paths under the base it is given: route on that base.
        req.url = req.url?.replace(/\/v1\/capabilities$/, '');
        const reply = (status: number, payload: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
        };
        if (req.url?.startsWith('/ok')) return reply(200, { ok: true });
        if (req.url === '/conflict')
          return reply(409, { code: 'already_decided', reason: 'first wins', remedy: 'none' });
        if (req.url === '/gone') return reply(404, { code: 'not_found', reason: 'no approval x' });
        if (req.url === '/boom')
          return reply(500, { code: 'internal', reason: 'internal error', request_id: 'req-1' });
        if (req.url === '/html') return reply(200, '<html>');
        if (req.url === '/newer')
          return reply(409, { code: 'a_code_from_a_newer_daemon', reason: 'newer', remedy: 'upgrade' });
        if (req.url === '/gateway') return reply(502, '');
        if (req.url?.startsWith('/page')) {
          const c = new URL(req.url, 'http://x').searchParams.get('cursor');
          return reply(
            200,
            c === null ? { items: [1, 2], next_cursor: 'p2' } : { items: [3], next_cursor: null },
          );
        }
        return reply(400, { code: 'invalid_request', reason: 'limit: too big', field: 'limit' });
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const client = () => new DaemonClient({ endpoint: base, token: 'tok' });

  it('sends the bearer token, the query and the JSON body', async () => {
    const c = client();
    expect(await c.get('/ok', { limit: 5, cursor: undefined, task_id: 'a b' })).toEqual({ ok: true });
    expect(seen).toMatchObject({ url: '/ok?limit=5&task_id=a+b', auth: 'Bearer tok' });
    await c.post('/ok', { decision: 'approve' });
    expect(JSON.parse(seen.body!)).toEqual({ decision: 'approve' });
    await c.close();
  });

  it('turns the daemon’s coded errors back into the coded family, with their exit codes', async () => {
    const c = client();
    const conflict = await failure(c.post('/conflict', {}));
    expect(conflict).toMatchObject({
      kind: 'conflict',
      code: 'already_decided',
      reason: 'first wins',
      remedy: 'none',
    });
    expect(exitCodeFor(conflict)).toBe(4);
    expect(exitCodeFor(await failure(c.get('/gone')))).toBe(3);
    const bad = await failure(c.get('/bad'));
    expect(bad).toMatchObject({ kind: 'invalid_request', field: 'limit' });
    expect(exitCodeFor(bad)).toBe(2);
    const boom = await failure(c.get('/boom'));
    expect(boom.kind).toBe('internal');
    expect(boom.reason).toMatch(/req-1/);
    expect(await failure(c.get('/html'))).toMatchObject({ kind: 'unavailable', code: 'invalid_response' });
    await c.close();
  });

  it('maps every daemon answer to the same error as the SDK does (one mapping, one exit code)', async () => {
    const c = client();
    // The SDK's own client over the same real socket, its base URL ending in the answer's path.
    const sdkError = async (path: string) => {
      const sdk = new SvcClient({ endpoint: `${base}${path}`, token: 'tok', env: {} });
      try {
        return await failure(sdk.capabilities());
      } finally {
        await sdk.close();
      }
    };
    for (const path of ['/conflict', '/gone', '/boom', '/newer', '/gateway', '/bad']) {
      const cli = await failure(c.get(path));
      const sdk = await sdkError(path);
      const shape = (e: SvcError) => ({ kind: e.kind, code: e.code, remedy: e.remedy, field: e.field });
      expect(shape(cli), path).toEqual(shape(sdk));
      expect(exitCodeFor(cli), path).toBe(exitCodeFor(sdk));
    }
    expect(await failure(c.get('/boom'))).toMatchObject({ kind: 'internal', code: 'internal' });
    expect(await failure(c.get('/newer'))).toMatchObject({
      kind: 'conflict',
      code: 'a_code_from_a_newer_daemon',
      remedy: 'upgrade',
    });
    expect(await failure(c.get('/gateway'))).toMatchObject({ kind: 'unavailable', code: 'unavailable' });
    await c.close();
  });

  it('follows pages only when asked', async () => {
    const c = client();
    const fetch = (cursor: string | undefined) =>
      c.get<{ items: number[]; next_cursor: string | null }>('/page', { cursor });
    const collect = async (all: boolean) => {
      const got: { items: number[]; next_cursor: string | null }[] = [];
      for await (const page of pageStream(fetch, { all })) got.push(page);
      return got;
    };
    expect(await collect(false)).toEqual([{ items: [1, 2], next_cursor: 'p2' }]);
    expect(await collect(true)).toEqual([
      { items: [1, 2], next_cursor: 'p2' },
      { items: [3], next_cursor: null },
    ]);
    await c.close();
  });

  it('a daemon that is not there is unavailable, naming the endpoint: never an empty answer', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const c = new DaemonClient({ endpoint: `http://127.0.0.1:${port}`, token: 'tok' });
    const err = await failure(c.get('/v1/approvals'));
    expect(err.kind).toBe('unavailable');
    expect(err.reason).toMatch(new RegExp(`not reachable at http://127\\.0\\.0\\.1:${port}`));
    expect(err.remedy).toMatch(/svc daemon start/);
    expect(exitCodeFor(err)).toBe(6);
    await c.close();
  });
});

describe('a TLS daemon asked over plain HTTP', () => {
  let server: HttpsServer;
  let port: number;
  beforeAll(async () => {
    const tls = await createDeploymentCertificate({ now: new Date() });
    server = createHttpsServer({ cert: tls.certPem, key: tls.keyPem }, (_req, res) => res.end('{}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('is unreachable, never an unknown outcome, and says which SVC_ENDPOINT to set (CLI and SDK alike)', async () => {
    const c = new DaemonClient({ endpoint: `http://127.0.0.1:${port}`, token: 'tok' });
    const cli = await failure(c.post('/v1/action', {}));
    await c.close();
    expect(cli).toMatchObject({ kind: 'unavailable', code: 'unreachable' });
    expect(cli.reason).toMatch(/answers TLS, not plain HTTP/);
    expect(cli.remedy).toContain(`SVC_ENDPOINT=https://127.0.0.1:${port}`);
    expect(exitCodeFor(cli)).toBe(6);
    const sdk = new SvcClient({ endpoint: `http://127.0.0.1:${port}`, token: 'tok', env: {} });
    const fromSdk = await failure(sdk.capabilities());
    await sdk.close();
    expect({ code: fromSdk.code, remedy: fromSdk.remedy }).toEqual({ code: cli.code, remedy: cli.remedy });
  });
});
