import { chmodSync, renameSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { revokeToken } from '../../src/provisioning/token.js';
import { buildDaemon } from '../../src/daemon/app.js';
import { daemonDeps } from '../../src/daemon/wiring.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { logCapture } from '../helpers/log-capture.js';

describe('daemon authentication (app.inject, real SQLite)', () => {
  let f: Fixture;
  beforeEach(async () => {
    f = await fixture();
  });
  afterEach(async () => f.close());

  const caps = (headers: Record<string, string>) =>
    f.app.inject({ method: 'GET', url: '/v1/capabilities', headers });

  it('health routes need no credential', async () => {
    expect((await f.app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    const ready = await f.app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('either header authenticates, and the credential resolves tenant and actor', async () => {
    const bot = await f.token('acme', 'bot');
    for (const headers of [
      { authorization: `Bearer ${bot}` },
      { 'x-svc-token': bot },
      { authorization: `bearer ${bot}`, 'x-svc-token': bot },
    ] as Record<string, string>[]) {
      const r = await caps(headers);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({ tenant_id: 'acme', actor_id: 'bot', capabilities: [] });
    }
    const olga = await caps({ authorization: `Bearer ${await f.token('other', 'olga')}` });
    expect(olga.json()).toMatchObject({ tenant_id: 'other', actor_id: 'olga' });
  });

  it('missing, malformed, unknown, wrong-secret, conflicting, expired and revoked credentials are 401 with a coded body', async () => {
    const good = await f.token('acme', 'bot');
    const [, id, secret] = /^svct_([0-9a-f]{16})_(.+)$/.exec(good)!;
    const wrongSecret = `svct_${id}_${(secret![0] === 'A' ? 'B' : 'A') + secret!.slice(1)}`;
    const unknownId = `svct_0000000000000000_${secret}`;
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /no credential/],
      [{ authorization: 'Basic abc' }, /Bearer/],
      [{ authorization: 'Bearer nope' }, /not an svc token/],
      [{ 'x-svc-token': unknownId }, /unknown token/],
      [{ 'x-svc-token': wrongSecret }, /unknown token/],
      [{ authorization: `Bearer ${good}`, 'x-svc-token': f.adminToken }, /different credentials/],
    ];
    for (const [headers, reason] of cases) {
      const r = await caps(headers);
      expect(r.statusCode, JSON.stringify(headers)).toBe(401);
      expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
      const body = r.json();
      expect(body.code).toBe('unauthenticated');
      expect(body.reason).toMatch(reason);
      expect(body.remedy).toMatch(/svc token issue --tenant <tenant> --actor <you>/);
    }

    const shortLived = await f.token('acme', 'bot', 60_000);
    f.now.value = new Date(f.now.value.getTime() + 60_000);
    expect((await caps({ 'x-svc-token': shortLived })).json().reason).toBe('the token is expired');

    const doomed = await f.token('acme', 'bot');
    expect((await caps({ 'x-svc-token': doomed })).statusCode).toBe(200);
    await revokeToken(f.store, { tenantId: 'acme', tokenId: doomed.slice(5, 21), now: f.now.value });
    const revoked = await caps({ 'x-svc-token': doomed });
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().reason).toBe('the token is revoked');
  });

  it('a revoke in another tenant cannot touch this tenant’s token', async () => {
    const bot = await f.token('acme', 'bot');
    await expect(
      revokeToken(f.store, { tenantId: 'other', tokenId: bot.slice(5, 21), now: f.now.value }),
    ).rejects.toThrow(/does not exist in tenant other/);
    expect((await caps({ 'x-svc-token': bot })).statusCode).toBe(200);
  });

  it('unknown routes and bad JSON get coded errors; 5xx hide internals', async () => {
    const r = await f.app.inject({ method: 'GET', url: '/v1/nothing?x=1' });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({
      code: 'not_found',
      reason: 'no such route',
      remedy: 'check the method and the path',
    });
    expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('readiness fails naming the part, never a path, tenant or key id; the log has the detail', async () => {
    const key = (await f.store.keys.active('acme'))!;
    const file = f.dir.keyFile('acme', key.keyId);
    chmodSync(file, 0o644);
    const log = logCapture();
    const logged = buildDaemon(daemonDeps(f.dir, f.store, { authMode: 'token', clock: () => f.now.value }), {
      logger: { stream: log.stream },
    });
    let r = await logged.inject('/readyz');
    await logged.close();
    expect(r.statusCode).toBe(503);
    expect(r.json()).toEqual({ code: 'unavailable', reason: 'a signing key cannot be loaded' });
    for (const secretish of [f.dir.root, 'acme', key.keyId]) expect(r.body).not.toContain(secretish);
    expect(log.text()).toMatch(/readable by group or others/);
    chmodSync(file, 0o600);
    renameSync(file, `${file}.gone`);
    r = await f.app.inject('/readyz');
    expect(r.statusCode).toBe(503);
    expect(r.json()).toMatchObject({
      code: 'unavailable',
      reason: expect.stringMatching(/cannot be loaded/),
    });
    renameSync(`${file}.gone`, file);
    expect((await f.app.inject('/readyz')).statusCode).toBe(200);
  });

  it('readiness fails when the store is closed', async () => {
    await f.store.close();
    const r = await f.app.inject('/readyz');
    expect(r.statusCode).toBe(503);
    expect(r.json().reason).toMatch(/store/);
  });

  it('refuses a body larger than the limit with 413, before authentication work is wasted on it', async () => {
    const r = await f.app.inject({
      method: 'POST',
      url: '/v1/action',
      headers: { 'content-type': 'application/json', 'x-svc-token': f.adminToken },
      payload: JSON.stringify({ intent: 'x'.repeat(300 * 1024) }),
    });
    expect(r.statusCode).toBe(413);
    expect(r.json()).toMatchObject({ code: 'payload_too_large' });
  });

  it('refuses malformed JSON and other media types with a coded 400', async () => {
    const bad = await f.app.inject({
      method: 'POST',
      url: '/v1/action',
      headers: { 'content-type': 'application/json', 'x-svc-token': f.adminToken },
      payload: '{"a":',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_request', field: 'body' });
    const text = await f.app.inject({
      method: 'POST',
      url: '/v1/action',
      headers: { 'content-type': 'text/plain', 'x-svc-token': f.adminToken },
      payload: 'hi',
    });
    expect(text.statusCode).toBe(400);
    expect(text.json().code).toBe('unsupported_media_type');
    const proto = await f.app.inject({
      method: 'POST',
      url: '/v1/action',
      headers: { 'content-type': 'application/json', 'x-svc-token': f.adminToken },
      payload: '{"__proto__": {"x": 1}}',
    });
    expect(proto.statusCode).toBe(400);
  });

  it('authenticates before the body is read: without a credential every bad body is 401', async () => {
    const bodies: [string, string][] = [
      ['application/json', '{"a":'],
      ['application/json', JSON.stringify({ intent: 'x'.repeat(300 * 1024) })],
      ['text/plain', 'hi'],
      ['application/json', '{"tenant_id": 7}'],
    ];
    for (const [type, payload] of bodies) {
      for (const headers of [{}, { authorization: 'Bearer svct_0123456789abcdef_nope' }]) {
        const r = await f.app.inject({
          method: 'POST',
          url: '/v1/action',
          headers: { 'content-type': type, ...headers },
          payload,
        });
        expect(r.statusCode, `${type} ${payload.slice(0, 20)}`).toBe(401);
        expect(r.json().code).toBe('unauthenticated');
      }
    }
    // Every authenticated route, not only /v1/action.
    const unsigned = await f.app.inject({
      method: 'POST',
      url: '/v1/grants/present',
      headers: { 'content-type': 'application/json' },
      payload: '[',
    });
    expect(unsigned.statusCode).toBe(401);
  });

  it('refuses an ambiguous credential sent over a real socket, never resolving it by header order', async () => {
    await f.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(f.app.server.address() as AddressInfo).port}/v1/capabilities`;
    const bot = await f.token('acme', 'bot');
    // undici sends a flat list exactly as given: repeated names stay repeated on the wire.
    const send = async (headers: string[]) => {
      const r = await request(url, { headers });
      return { status: r.statusCode, body: (await r.body.json()) as { code: string; reason: string } };
    };
    const cases: [string[], RegExp][] = [
      [
        ['authorization', `Bearer ${bot}`, 'authorization', `Bearer ${f.adminToken}`],
        /Authorization: expected one header/,
      ],
      [
        ['authorization', `Bearer ${bot}`, 'authorization', 'Bearer garbage'],
        /Authorization: expected one header/,
      ],
      [
        ['authorization', `Bearer ${bot}`, 'authorization', `Bearer ${bot}`],
        /Authorization: expected one header/,
      ],
      [['x-svc-token', bot, 'x-svc-token', f.adminToken], /X-SVC-Token: expected one header/],
      [
        ['authorization', `Bearer ${bot}`, 'x-svc-token', bot, 'x-svc-token', f.adminToken],
        /X-SVC-Token: expected one header/,
      ],
      [['authorization', `Bearer ${bot}`, 'x-svc-token', f.adminToken], /different credentials/],
    ];
    for (const [headers, reason] of cases) {
      const r = await send(headers);
      expect(r.status, headers.join(' ')).toBe(401);
      expect(r.body.code).toBe('unauthenticated');
      expect(r.body.reason).toMatch(reason);
    }
    // One credential, or the same one in both headers, still authenticates.
    expect((await send(['authorization', `Bearer ${bot}`])).status).toBe(200);
    expect((await send(['authorization', `Bearer ${bot}`, 'x-svc-token', bot])).status).toBe(200);
  });
});
