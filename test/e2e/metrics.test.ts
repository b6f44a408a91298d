import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleProcess } from '../helpers/browser.js';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';

const hasBinary = (name: string) => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;

/** A port the OS just handed out and released: Prometheus cannot report the one it chose for :0. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/**
 * The built daemon with `--metrics-listen`: decisions over real TLS, the metrics served on
 * their own loopback listener behind a bearer token, checked by Debian's promtool, and
 * scraped by a real Prometheus server whose query API then returns the decision counts.
 */
describe('svc daemon start --metrics-listen (built binary, promtool, Prometheus)', () => {
  const tmp = tmpDir('svc-e2e-metrics-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const tokenFile = join(tmp.path, 'metrics.token');
  const scrapeToken = 'metrics-scrape-token-0123456789';
  let ca: Buffer;
  let bot: string;
  let daemon: DaemonProcess;
  let metricsUrl: string;
  const svc = (args: string[]) => runJson(args, env);
  const act = (over: Record<string, unknown>) =>
    call(`${daemon.url}/v1/action`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${bot}` },
      body: { tenant_id: 'acme', actor_id: 'bot', task_id: 't1', action: 'read', ...over },
    });
  const scrape = async () => {
    const r = await fetch(metricsUrl, { headers: { authorization: `Bearer ${scrapeToken}` } });
    expect(r.status).toBe(200);
    return r.text();
  };

  beforeAll(async () => {
    const init = await runJson<{ ca_cert: string }>(['init', '--tenant', 'acme', '--admin', 'alice'], env);
    ca = readFileSync(init.ca_cert);
    const t = ['--tenant', 'acme'];
    await svc(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice']);
    for (const name of ['crm.read', 'crm.export'])
      await svc(['capability', 'register', ...t, '--name', name, '--actions', 'read', '--tier', '1']);
    await svc(['permission', 'grant', ...t, '--actor', 'bot', '--capability', 'crm.read']);
    await svc([
      'capability',
      'register',
      ...t,
      '--name',
      'payments.send',
      '--actions',
      'write',
      '--tier',
      '3',
      '--irreversible',
    ]);
    await svc(['permission', 'grant', ...t, '--actor', 'bot', '--capability', 'payments.send']);
    const policy = join(tmp.path, 'policy.cedar');
    writeFileSync(policy, 'permit (principal, action, resource);\n');
    await svc(['policy', 'set', ...t, '--file', policy]);
    await svc([
      'task',
      'create',
      ...t,
      '--id',
      't1',
      '--sponsor',
      'alice',
      '--budget-usd',
      '100',
      '--actor',
      'bot',
    ]);
    bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
    writeFileSync(tokenFile, `${scrapeToken}\n`, { mode: 0o600 });
    daemon = await startDaemonProcess(
      ['--metrics-listen', '127.0.0.1:0', '--metrics-token-file', tokenFile],
      env,
    );
    metricsUrl = await until(
      'the metrics address',
      () => /metrics on (\S+)/.exec(daemon.stderr())?.[1],
      () => daemon.stderr(),
    );
  });
  afterAll(async () => {
    await daemon?.stop();
    tmp.cleanup();
  });

  it('refuses a non-loopback metrics address without --metrics-allow-remote, before starting', async () => {
    const r = await runSvc(
      ['daemon', 'start', '--listen', '127.0.0.1:0', '--metrics-listen', '0.0.0.0:0'],
      env,
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/metrics-listen: expected a loopback address/);
    expect(r.stderr).not.toMatch(/listening on/);
  });

  it('counts decisions by outcome and code; the text passes promtool check metrics', async () => {
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect((await fetch(metricsUrl)).status).toBe(401);
    expect((await fetch(metricsUrl.replace(/metrics$/, 'v1/action'))).status).toBe(404);

    for (const step of ['r1', 'r2', 'r3'])
      expect((await act({ capability: 'crm.read', effect_key_step: step })).status).toBe(200);
    const refused = await act({ capability: 'crm.export', effect_key_step: 'x1' });
    expect(refused.status).toBe(403);
    const code = refused.body.code as string;
    const dup = await act({ capability: 'crm.read', effect_key_step: 'r1' });
    expect(dup.status).toBe(409);
    const deferred = await act({ capability: 'payments.send', action: 'write', effect_key_step: 'p1' });
    expect(deferred.status).toBe(202);

    const text = await scrape();
    expect(text).toContain('svc_decisions_total{route="action",outcome="allowed",code=""} 3');
    expect(text).toContain(`svc_decisions_total{route="action",outcome="refused",code="${code}"} 1`);
    expect(text).toContain(
      'svc_decisions_total{route="action",outcome="conflict",code="duplicate_effect"} 1',
    );
    expect(text).toContain('svc_decisions_total{route="action",outcome="deferred",code=""} 1');
    expect(text).toContain('svc_decision_duration_seconds_count{route="action"} 6');
    expect(text).toContain('svc_approvals_pending 1');
    expect(text).toMatch(/^svc_journal_entries [1-9]\d*$/m);
    expect(text).toMatch(/^svc_anchor_age_seconds \d/m);
    expect(text).toContain('svc_attestation_failures_total 0');
    // One bot token: looked up in the store once, then answered from the cache.
    expect(text).toContain('svc_token_cache_misses_total 1');
    expect(text).toContain('svc_token_cache_hits_total 5');
    expect(text).toContain('process_resident_memory_bytes');
    // Every decision above went through the SQLite group commit and its fsync.
    const count = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
    expect(count('svc_commit_batch_size_sum')).toBeGreaterThanOrEqual(4);
    expect(count('svc_commit_fsync_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(text).toContain('svc_store_busy_total 0');
    expect(text).not.toContain('tenant=');

    const file = join(tmp.path, 'metrics.txt');
    writeFileSync(file, text);
    if (!hasBinary('promtool')) {
      console.warn(
        'promtool not installed (Debian package prometheus): the exposition format is not checked',
      );
      return;
    }
    const check = spawnSync('sh', ['-c', `promtool check metrics < "${file}"`], { encoding: 'utf8' });
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
    expect(`${check.stdout}${check.stderr}`.trim()).toBe('');
  });

  it('a real Prometheus server scrapes the listener and answers svc_decisions_total', async () => {
    if (!hasBinary('prometheus')) {
      console.warn('prometheus not installed (Debian package prometheus): only promtool checked the text');
      return;
    }
    const target = new URL(metricsUrl);
    const port = await freePort();
    const config = join(tmp.path, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        'scrape_configs:',
        '  - job_name: svc',
        '    authorization:',
        `      credentials_file: ${tokenFile}`,
        '    static_configs:',
        `      - targets: ['${target.host}']`,
        '',
      ].join('\n'),
    );
    let log = '';
    const prom: ChildProcess = spawn(
      'prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(tmp.path, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prom.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    prom.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise((r) => prom.once('close', r));
    try {
      const query = async (q: string) => {
        const r = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(q)}`).catch(
          () => undefined,
        );
        if (!r?.ok) return undefined;
        const body = (await r.json()) as {
          data: { result: { metric: Record<string, string>; value: [number, string] }[] };
        };
        return body.data.result;
      };
      const up = await until(
        'Prometheus to scrape the svc target',
        async () => ((await query('up{job="svc"}'))?.[0]?.value[1] === '1' ? true : undefined),
        () => log.slice(-2000),
        60_000,
      );
      expect(up).toBe(true);
      const allowed = await query('svc_decisions_total{job="svc",outcome="allowed"}');
      expect(allowed).toHaveLength(1);
      expect(allowed?.[0]?.metric).toMatchObject({ route: 'action', outcome: 'allowed' });
      // Prometheus drops a label whose value is empty: an allowed decision has no code.
      expect(allowed?.[0]?.metric.code).toBeUndefined();
      expect(allowed?.[0]?.value[1]).toBe('3');
      const total = await query('sum(svc_decisions_total{job="svc"})');
      expect(total?.[0]?.value[1]).toBe('6');
    } finally {
      prom.kill('SIGTERM');
      await exited;
    }
  });

  it("svc console start --metrics-listen serves the console's own request counts, promtool-clean", async () => {
    const c = await startConsoleProcess(['--allow-insecure-http', '--metrics-listen', '127.0.0.1:0'], env);
    try {
      const url = await until(
        'the console metrics address',
        () => /metrics on (\S+)/.exec(c.stderr())?.[1],
        () => c.stderr(),
      );
      expect((await call(`${c.url}/api/theme`)).status).toBe(401);
      expect((await call(`${c.url}/api/openapi.json`)).status).toBe(200);
      const r = await fetch(url);
      expect(r.status).toBe(200);
      const text = await r.text();
      expect(text).toContain('svc_console_requests_total{route="/api/theme",method="GET",status="401"} 1');
      expect(text).toContain(
        'svc_console_requests_total{route="/api/openapi.json",method="GET",status="200"} 1',
      );
      expect(text).toMatch(/^svc_journal_entries [1-9]\d*$/m);
      expect(text).not.toContain('svc_decisions_total{');
      if (!hasBinary('promtool')) return;
      const file = join(tmp.path, 'console-metrics.txt');
      writeFileSync(file, text);
      const check = spawnSync('sh', ['-c', `promtool check metrics < "${file}"`], { encoding: 'utf8' });
      expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
    } finally {
      expect(await c.stop()).toBe(0);
    }
  });
});
