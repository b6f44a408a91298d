import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';

/**
 * The built binary reading a configuration file: `svc daemon start --config FILE` takes the
 * file's values (paths relative to the file), a flag beats the file, `--print-config` starts
 * nothing and hides passwords, and `svc config example | check` round-trips.
 */
describe('svc daemon start --config (built binary)', () => {
  const tmp = tmpDir('svc-e2e-config-');
  const conf = join(tmp.path, 'etc');
  const scrapeToken = 'config-scrape-token-0123456789';
  let busy: Server;
  let busyPort: number;
  let daemon: DaemonProcess | undefined;

  beforeAll(async () => {
    await runJson(['init', '--tenant', 'acme', '--admin', 'alice', '--data-dir', join(tmp.path, 'home')]);
    mkdirSync(conf);
    writeFileSync(join(conf, 'metrics.token'), `${scrapeToken}\n`, { mode: 0o600 });
    // A port held here: were the file's listen used, the daemon could not bind it.
    busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(async () => {
    await daemon?.stop();
    await new Promise((r) => busy.close(r));
    tmp.cleanup();
  });

  it("takes the file's values, relative paths from the file's directory, and a flag over the file", async () => {
    const file = join(conf, 'svc.yaml');
    writeFileSync(
      file,
      [
        `listen: 127.0.0.1:${busyPort}`,
        'data-dir: ../home',
        'metrics-listen: 127.0.0.1:0',
        'metrics-token-file: metrics.token',
        'anchor-entries: 3',
        '',
      ].join('\n'),
    );
    // The helper passes --listen 127.0.0.1:0: the flag must win over the file's busy port.
    daemon = await startDaemonProcess(['--config', file]);
    expect(daemon.url).not.toContain(`:${busyPort}`);
    const d = daemon;
    const metricsUrl = await until(
      'the metrics listener from the file',
      () => /metrics on (\S+)/.exec(d.stderr())?.[1],
      () => d.stderr(),
    );
    expect((await fetch(metricsUrl)).status).toBe(401);
    const r = await fetch(metricsUrl, { headers: { authorization: `Bearer ${scrapeToken}` } });
    expect(r.status).toBe(200);
    expect(await r.text()).toContain('svc_decisions_total');
    expect(await daemon.stop()).toBe(0);
    daemon = undefined;
  });

  it('SIGHUP reads the file again: live keys apply, others wait for the next start, a bad file changes nothing', async () => {
    const file = join(conf, 'live.yaml');
    writeFileSync(file, ['data-dir: ../home', 'anchor-entries: 3', 'request-timeout: 30s', ''].join('\n'));
    const d = await startDaemonProcess(['--config', file]);
    try {
      writeFileSync(
        file,
        [
          'data-dir: ../home',
          'anchor-entries: 7',
          'request-timeout: 40s',
          'max-open-approvals-per-actor: 2',
          '',
        ].join('\n'),
      );
      let from = d.stderr().length;
      d.child.kill('SIGHUP');
      const applied = await until(
        'the reload line',
        () => /live settings applied: [^\n]*/.exec(d.stderr().slice(from))?.[0],
        () => d.stderr(),
      );
      expect(applied).toContain('anchor-entries');
      expect(d.stderr().slice(from)).toContain(
        'svc daemon: request-timeout changed; it takes effect at the next start',
      );
      expect(d.stdout()).toMatch(
        /"anchorEntries":7.*live settings reloaded|live settings reloaded.*"anchorEntries":7/,
      );
      expect(d.stdout()).toMatch(/"perActor":2/);

      writeFileSync(file, ['data-dir: ../home', 'anchor-entries: 9', 'lisen: 127.0.0.1:0', ''].join('\n'));
      from = d.stderr().length;
      d.child.kill('SIGHUP');
      const refused = await until(
        'the refused reload',
        () => /reload refused, nothing changed: [^\n]*/.exec(d.stderr().slice(from))?.[0],
        () => d.stderr(),
      );
      expect(refused).toContain('lisen: unknown key');
      expect(d.stdout()).not.toMatch(/"anchorEntries":9/);
      expect(d.child.exitCode).toBeNull();
    } finally {
      expect(await d.stop()).toBe(0);
    }
  });

  it('--print-config prints the effective configuration with its sources and starts nothing', async () => {
    const file = join(conf, 'print.yaml');
    writeFileSync(file, 'store: postgres://svc:hunter2-pw@db.example/svc\nanchor-entries: 3\n');
    const r = await runSvc(
      ['daemon', 'start', '--config', file, '--print-config', '--listen', '127.0.0.1:0'],
      {
        SVC_ANCHOR_INTERVAL: '1m',
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('listen: 127.0.0.1:0 # flag\n');
    expect(r.stdout).toContain('anchor-interval: 1m # env SVC_ANCHOR_INTERVAL\n');
    expect(r.stdout).toContain('anchor-entries: 3 # file\n');
    expect(r.stdout).toContain('max-connections: 1024 # default\n');
    expect(r.stdout).toContain('store: postgres://svc:<redacted>@db.example/svc # file\n');
    expect(`${r.stdout}${r.stderr}`).not.toContain('hunter2-pw');
    expect(r.stderr).not.toContain('listening');
  });

  it('a bad file stops the daemon before it starts: exit 2, each problem with its key', async () => {
    const file = join(conf, 'bad.yaml');
    writeFileSync(file, 'metrics-listen: 8080\nlisen: 127.0.0.1:0\n');
    const r = await runSvc(['daemon', 'start', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `config ${file}: metrics-listen: expected a string HOST:PORT, got 8080 (line 1)`,
    );
    expect(r.stderr).toContain(`config ${file}: lisen: unknown key; did you mean listen? (line 2)`);
    expect(r.stderr).not.toContain('listening');
  });
});

describe('svc config example and svc config check (built binary)', () => {
  const tmp = tmpDir('svc-e2e-config-check-');
  afterAll(() => tmp.cleanup());

  for (const target of ['daemon', 'console', 'witness']) {
    it(`svc config example --for ${target} > FILE && svc config check FILE --for ${target}`, async () => {
      const example = await runSvc(['config', 'example', '--for', target]);
      expect(example.code).toBe(0);
      expect(example.stdout).toMatch(/^# listen: 127\.0\.0\.1:80\d\d$/m);
      const file = join(tmp.path, `${target}.yaml`);
      writeFileSync(file, example.stdout);
      const check = await runSvc(['config', 'check', file, '--for', target]);
      expect(check.code).toBe(0);
      const command = { daemon: 'daemon start', console: 'console start', witness: 'witness serve' }[target];
      expect(check.stdout).toBe(`${file}: valid for svc ${command} (0 keys)\n`);
    });
  }

  it('counts the keys it checked, and refuses with every problem and exit 2', async () => {
    const good = join(tmp.path, 'good.yaml');
    writeFileSync(good, 'listen: 0.0.0.0:8090\nwitness: []\n');
    expect((await runSvc(['config', 'check', good])).stdout).toBe(
      `${good}: valid for svc daemon start (2 keys)\n`,
    );
    const bad = join(tmp.path, 'bad.yaml');
    writeFileSync(bad, 'listen: 8090\nkey-file: w.pem\n');
    const r = await runSvc(['config', 'check', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`config ${bad}: listen: expected a string HOST:PORT, got 8090 (line 1)`);
    // The daemon's nearest key is its --kek-file: named as a suggestion, never taken for it.
    expect(r.stderr).toContain(`config ${bad}: key-file: unknown key; did you mean kek-file? (line 2)`);
    // The same file is fine for the witness, which has a key-file (its listen is still wrong).
    const w = await runSvc(['config', 'check', bad, '--for', 'witness', '--json']);
    expect(w.code).toBe(2);
    expect(JSON.parse(w.stdout)).toMatchObject({ error: { code: 'usage', field: 'config' } });
    expect(JSON.parse(w.stdout).error.reason).not.toContain('key-file');
  });
});
