import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildDaemon } from '../../src/daemon/app.js';
import { daemonDeps } from '../../src/daemon/wiring.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
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
      const secret = token.split('_')[2]!;
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
});
