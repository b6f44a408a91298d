import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildDaemon } from '../../src/daemon/app.js';
import { daemonDeps } from '../../src/daemon/wiring.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { logCapture } from '../helpers/log-capture.js';

interface Line {
  reqId: string;
  msg: string;
  req: { method: string; url: string };
  res: { statusCode: number };
  responseTime: number;
}

/** At info, a request costs one serialised log line: written when it is answered. */
describe('request log', () => {
  let f: Fixture;
  beforeEach(async () => {
    f = await fixture();
  });
  afterEach(async () => f.close());

  it('writes exactly one line per request, with its id, path, status and time', async () => {
    const log = logCapture();
    const app = buildDaemon(daemonDeps(f.dir, f.store, { authMode: 'token', clock: () => f.now.value }), {
      logger: { stream: log.stream },
    });
    try {
      const answers = [
        await app.inject({ url: '/v1/capabilities', headers: { authorization: `Bearer ${f.adminToken}` } }),
        await app.inject({ url: '/v1/capabilities' }),
        await app.inject({ url: '/v1/nothing?token=abc' }),
        await app.inject('/healthz'),
      ];
      const lines = log
        .text()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line);
      expect(lines).toHaveLength(answers.length);
      answers.forEach((r, i) => {
        const line = lines[i]!;
        expect(line.reqId).toBe(r.headers['x-request-id']);
        expect(line.msg).toBe('request completed');
        expect(line.res).toEqual({ statusCode: r.statusCode });
        expect(typeof line.responseTime).toBe('number');
      });
      expect(lines.map((l) => [l.req.method, l.req.url, l.res.statusCode])).toEqual([
        ['GET', '/v1/capabilities', 200],
        ['GET', '/v1/capabilities', 401],
        ['GET', '/v1/nothing?[redacted]', 404],
        ['GET', '/healthz', 200],
      ]);
    } finally {
      await app.close();
    }
  });

  it('writes one line per request to a log file when given one, as the quickstart does', async () => {
    const file = join(f.dir.root, 'daemon.log');
    const app = buildDaemon(daemonDeps(f.dir, f.store, { authMode: 'token', clock: () => f.now.value }), {
      logger: { level: 'info', file },
    });
    try {
      for (let i = 0; i < 50; i++) await app.inject('/healthz');
    } finally {
      await app.close();
    }
    let lines: string[] = [];
    for (let i = 0; i < 100 && lines.length < 50; i++) {
      await new Promise((r) => setTimeout(r, 20));
      lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    }
    expect(lines).toHaveLength(50);
    for (const l of lines)
      expect(JSON.parse(l)).toMatchObject({ msg: 'request completed', res: { statusCode: 200 } });
  });

  it('every answer carries its request id, nosniff and no-store', async () => {
    for (const r of [
      await f.app.inject({ url: '/v1/capabilities', headers: { authorization: `Bearer ${f.adminToken}` } }),
      await f.app.inject({ url: '/v1/capabilities' }),
      await f.app.inject({ url: '/v1/nothing' }),
    ]) {
      expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['cache-control']).toBe('no-store');
    }
  });
});
