import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildConsole, consoleRoutes } from '../../src/console/app.js';
import { consoleDeps } from '../../src/console/server.js';
import { buildDaemon } from '../../src/daemon/app.js';
import type { AnyRoute } from '../../src/http/route.js';
import { daemonDeps } from '../../src/daemon/wiring.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { fullDaemon } from '../helpers/full-daemon.js';
import { logCapture } from '../helpers/log-capture.js';

describe('logs and error bodies never carry what the caller sent', () => {
  let f: Fixture;
  beforeEach(async () => {
    f = await fixture();
  });
  afterEach(async () => f.close());

  it('a credential in the query string, a header or a cookie never reaches the log', async () => {
    const token = await f.token('acme', 'bot');
    const log = logCapture();
    const app = buildDaemon(daemonDeps(f.dir, f.store, { authMode: 'token', clock: () => f.now.value }), {
      logger: { stream: log.stream, level: 'trace' },
    });
    try {
      for (const url of [
        `/v1/capabilities?access_token=${token}`,
        `/v1/nothing?access_token=${token}&x=1`,
        `/healthz?token=${token}`,
      ]) {
        await app.inject({ url });
      }
      await app.inject({
        url: '/v1/capabilities',
        headers: { authorization: `Bearer ${token}`, cookie: `s=${token}`, 'x-svc-token': token },
      });
      const text = log.text();
      expect(text).toContain('"url":"/v1/capabilities?[redacted]"');
      expect(text).toContain('"url":"/v1/nothing?[redacted]"');
      const secret = token.slice('svct_'.length + 17); // base64url: the secret itself may hold '_'
      expect(text).not.toContain(secret);
      expect(text).not.toContain('access_token');
    } finally {
      await app.close();
    }
  });

  it('a 404 does not echo the path, and a JSON error does not echo the body', async () => {
    const probe = '<script>alert(1)</script>';
    const r = await f.app.inject({ url: `/v1/${encodeURIComponent(probe)}?q=${probe}` });
    expect(r.statusCode).toBe(404);
    expect(r.body).not.toMatch(/script|v1/);
    const bad = await f.app.inject({
      method: 'POST',
      url: '/v1/action',
      headers: { authorization: `Bearer ${f.adminToken}`, 'content-type': 'application/json' },
      payload: `{"marker-${probe}`,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      code: 'invalid_request',
      // the offset says where, never what: the body is not echoed
      reason: expect.stringMatching(/^body: expected valid JSON( \(syntax error at byte offset \d+\))?$/),
      field: 'body',
    });
    expect(bad.body).not.toContain('marker');
  });

  it('a token put in a path is redacted from the request log of the daemon and the console', async () => {
    const token = await f.token('acme', 'bot');
    const secret = token.slice('svct_'.length + 17); // base64url: the secret itself may hold '_'
    const log = logCapture();
    const daemon = buildDaemon(daemonDeps(f.dir, f.store, { authMode: 'token', clock: () => f.now.value }), {
      logger: { stream: log.stream },
    });
    const console = buildConsole(
      consoleDeps(f.dir, f.store, { secure: true, authMode: 'token', clock: () => f.now.value }),
      { logger: { stream: log.stream } },
    );
    const bearer = { authorization: `Bearer ${f.adminToken}` };
    const paths = [
      `/v1/task/${token}`,
      `/v1/receipts/${token}/proof`,
      `/v1/task/${encodeURIComponent(token).replaceAll('_', '%5F')}`,
      `/v1/task/${token.replaceAll('_', '%255F')}`,
      `/v1/task/SVCT_${secret}`,
      `/v1/${token}`,
      `/approvals/${token}/callback`,
    ];
    try {
      for (const url of paths) await daemon.inject({ url, headers: bearer });
      for (const url of [`/api/records/${token}`, `/tenant-assets/${token}`, `/${token}`]) {
        await console.inject({ url, headers: bearer });
      }
      const lines = log
        .text()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { req?: { url: string } });
      const urls = lines.map((l) => l.req?.url);
      expect(urls.length).toBe(paths.length + 3);
      expect(urls).toContain('/v1/task/[redacted]');
      expect(urls).toContain('/api/records/[redacted]');
      expect(log.text()).not.toContain(secret);
      expect(log.text()).not.toMatch(/svct/i);
      // Paths without a token keep their segments: the log still says what was asked.
      await daemon.inject({ url: '/v1/task/t-main%20x', headers: bearer });
      expect(log.text()).toContain('"url":"/v1/task/t-main%20x"');
    } finally {
      await daemon.close();
      await console.close();
    }
  });
});

describe('a refusal names the kind of object, never the id the caller sent', () => {
  it('on every daemon and console route with a path parameter, and the receipts task filter', async () => {
    const d = await fullDaemon();
    const c = buildConsole(
      consoleDeps(d.f.dir, d.f.store, { secure: true, authMode: 'token', clock: () => d.f.now.value }),
      { logger: false },
    );
    try {
      const session = await c.inject({
        method: 'POST',
        url: '/api/session',
        headers: { authorization: `Bearer ${d.tokens.alice}` },
        payload: {},
      });
      const cookie = String(session.headers['set-cookie']).split(';')[0]!;
      const csrf = (session.json() as { csrf_token: string }).csrf_token;
      const probes = ['zz-echo-probe-7f3a', await d.f.token('acme', 'bot'), '<img src=x>'];
      const withParams = (routes: AnyRoute[]) => routes.filter((r) => r.url.includes('/:'));
      const asked: string[] = [];
      const check = (what: string, status: number, body: string, probe: string) => {
        asked.push(`${status} ${what}`);
        expect(status, what).toBeGreaterThanOrEqual(400);
        expect(body, what).not.toContain(probe);
        expect(body, what).not.toContain(encodeURIComponent(probe));
      };
      for (const probe of probes) {
        const id = encodeURIComponent(probe);
        for (const route of withParams(d.routes)) {
          const url = route.url.replace(/:[a-z_]+/g, id);
          const r = await d.app.inject({
            method: route.method,
            url,
            headers: { authorization: `Bearer ${d.tokens.alice}`, 'content-type': 'application/json' },
            ...(route.method === 'POST' ? { payload: '{}' } : {}),
          });
          check(`${route.method} ${route.url}`, r.statusCode, r.body, probe);
        }
        const filtered = await d.app.inject({
          url: `/v1/receipts?task_id=${id}`,
          headers: { authorization: `Bearer ${d.tokens.alice}` },
        });
        check('GET /v1/receipts?task_id=', filtered.statusCode, filtered.body, probe);
        const consoleRouteTable = [
          ...consoleRoutes(consoleDeps(d.f.dir, d.f.store, { secure: true, authMode: 'token' })),
          { method: 'GET', url: '/tenant-assets/:name' } as AnyRoute,
        ];
        for (const route of withParams(consoleRouteTable)) {
          const url = route.url.replace(/:[a-z_]+/g, id);
          const r = await c.inject({
            method: route.method,
            url,
            headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
            ...(route.method === 'POST' ? { payload: '{"decision":"approve"}' } : {}),
          });
          check(`console ${route.method} ${route.url}`, r.statusCode, r.body, probe);
        }
        const file = await c.inject({ url: `/assets/${id}.js`, headers: { cookie } });
        check('console GET /assets/:file', file.statusCode, file.body, probe);
      }
      // The probes reached the lookups, not only validation: the common answer is a 404.
      expect(asked.filter((a) => a.startsWith('404')).length).toBeGreaterThan(10);
    } finally {
      await c.close();
      await d.close();
    }
  });
});
