import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import {
  isLoopbackHost,
  metricsListenPlan,
  startMetricsListener,
  type MetricsListener,
} from '../../../src/metrics/listener.js';
import { SvcMetrics } from '../../../src/metrics/registry.js';
import { tmpDir } from '../../helpers/tmp.js';

describe('metrics listener', () => {
  const tmp = tmpDir('svc-metrics-');
  let listener: MetricsListener | undefined;
  afterEach(async () => {
    await listener?.close();
    listener = undefined;
  });

  it('knows loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', 'localhost', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.5', 'example.org', '128.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(false);
  });

  it('refuses a reachable address unless allowed, naming the flag', () => {
    const refused = () => metricsListenPlan({ listen: '0.0.0.0:9464' });
    expect(refused).toThrow(SvcError);
    expect(refused).toThrow(/metrics-listen: expected a loopback address.*--metrics-allow-remote/);
    expect(metricsListenPlan({ listen: '0.0.0.0:9464', allowRemote: true })).toMatchObject({
      host: '0.0.0.0',
      port: 9464,
    });
    expect(() => metricsListenPlan({ listen: 'nonsense' })).toThrow(/^metrics-listen: expected host:port/);
  });

  it('refuses a short or missing token file, naming the flag', () => {
    const short = join(tmp.path, 'short');
    writeFileSync(short, 'abc\n');
    expect(() => metricsListenPlan({ listen: '127.0.0.1:0', tokenFile: short })).toThrow(
      /^metrics-token-file: expected a token of at least 16 characters/,
    );
    expect(() => metricsListenPlan({ listen: '127.0.0.1:0', tokenFile: join(tmp.path, 'absent') })).toThrow(
      /metrics-token-file/,
    );
  });

  it('serves GET /metrics in the Prometheus text format and 404 for anything else', async () => {
    const metrics = new SvcMetrics({}, { defaultMetrics: false });
    metrics.decided({ route: 'action', outcome: 'allowed', code: '', tenantId: 'acme', seconds: 0.001 });
    listener = await startMetricsListener(metrics, { listen: '127.0.0.1:0' });
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const r = await fetch(listener.url);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await r.text()).toContain('svc_decisions_total{route="action",outcome="allowed",code=""} 1');
    const base = listener.url.replace(/\/metrics$/, '');
    for (const path of ['/', '/v1/action', '/metrics/x', '/healthz'])
      expect((await fetch(`${base}${path}`)).status, path).toBe(404);
    expect((await fetch(listener.url, { method: 'POST' })).status).toBe(404);
  });

  it('with a token file, answers only the exact bearer token', async () => {
    const file = join(tmp.path, 'token');
    const token = 'a-scrape-token-of-some-length';
    writeFileSync(file, `${token}\n`);
    listener = await startMetricsListener(new SvcMetrics({}, { defaultMetrics: false }), {
      listen: '127.0.0.1:0',
      tokenFile: file,
    });
    const get = (authorization?: string) =>
      fetch(listener!.url, authorization === undefined ? {} : { headers: { authorization } });
    expect((await get()).status).toBe(401);
    expect((await get(`Bearer ${token}x`)).status).toBe(401);
    expect((await get(`Bearer ${token.slice(0, -1)}`)).status).toBe(401);
    expect((await get(`Basic ${token}`)).status).toBe(401);
    expect((await get(`Bearer  ${token}`)).status).toBe(401);
    const ok = await get(`Bearer ${token}`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('# TYPE svc_decisions_total counter');
  });
});
