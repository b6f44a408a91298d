import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, runSvc, startDaemonProcess } from '../helpers/cli.js';
import { svcOnPath } from '../helpers/path-shim.js';
import { tmpDir } from '../helpers/tmp.js';

interface Running {
  out: () => string;
  ready: Promise<void>;
  stop: () => Promise<number | null>;
}

/** `svc quickstart` in `cwd` on a free port, ready once it says how to stop it. */
function quickstart(cwd: string, extra: string[] = []): Running {
  const child = spawn(
    process.execPath,
    [BIN, 'quickstart', '--listen', '127.0.0.1:0', '--console-listen', '127.0.0.1:0', ...extra],
    {
      cwd,
      env: { ...process.env, NO_COLOR: '1', SVC_HOME: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const exited = new Promise<number | null>((r) => child.on('close', r));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Press Ctrl-C to stop.')) resolve();
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    void exited.then((c) => reject(new Error(`quickstart exited ${c}: ${out}`)));
  });
  return { out: () => out, ready, stop: () => (child.kill('SIGINT'), exited) };
}

/** Run the printed walk-through with bash, step by step: `# N. …` lines mark the steps. */
function runWalkthrough(cwd: string, printed: string, path: string): Promise<Map<string, string>> {
  const lines = printed.split('\n');
  const first = lines.findIndex((l) => l.startsWith('  eval "$(svc quickstart --env)"'));
  const last = lines.findIndex((l) => l.startsWith('  svc verify '));
  expect(first).toBeGreaterThan(0);
  expect(last).toBeGreaterThan(first);
  const script = lines
    .slice(first, last + 1)
    .map((l) => l.slice(2))
    .map((l) => (/^# (\d+)\./.test(l) ? `echo "@@ step ${/^# (\d+)\./.exec(l)![1]}"` : l))
    .join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-c', script], {
      cwd,
      env: { ...process.env, PATH: path, NO_COLOR: '1', SVC_HOME: '', SVC_ENDPOINT: '', SVC_TOKEN: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`walk-through failed (${code}): ${out}\n${err}`));
      const steps = new Map<string, string>();
      for (const part of `${out}\n${err}`.split('@@ step ').slice(1)) {
        const nl = part.indexOf('\n');
        steps.set(part.slice(0, nl), part.slice(nl + 1));
      }
      resolve(steps);
    });
  });
}

const tokenIds = (dataDir: string) => {
  const kept = JSON.parse(readFileSync(join(dataDir, 'quickstart.json'), 'utf8')) as Record<
    string,
    { token_id: string }
  >;
  return [kept.admin!.token_id, kept.agent!.token_id];
};

describe('svc quickstart', () => {
  const tmp = tmpDir('svc-qs-');
  afterAll(() => tmp.cleanup());

  it('provisions the demo, and the printed walk-through (curl and the CLI) runs as printed', async () => {
    const cwd = join(tmp.path, 'walk');
    mkdirSync(cwd);
    const path = svcOnPath(join(tmp.path, 'walk-bin'));
    const qs = quickstart(cwd);
    try {
      await qs.ready;
      expect(qs.out()).toMatch(/new data dir/);
      // No token on the terminal unless asked for (`svc quickstart --env`).
      expect(qs.out()).not.toMatch(/svct_/);
      const steps = await runWalkthrough(cwd, qs.out(), path);
      expect(steps.get('1')).toMatch(/"decision":"allowed"/);
      expect(steps.get('2')).toMatch(
        /"decision":"refused","intent_id":"int_[0-9a-f]+","code":"policy_denied"/,
      );
      expect(steps.get('2')).toMatch(/"remedy":"refund at most 100 USD in one action/);
      expect(steps.get('3')).toMatch(/"decision":"deferred"/);
      expect(steps.get('4')).toMatch(/apr_[0-9a-f]+ approved: payments\.refund refund for demo-agent/);
      expect(steps.get('5')).toMatch(/"decision":"allowed".*"amount_usd":40/);
      expect(steps.get('6')).toMatch(/^.*\bapproval\b.*\bapproved\b.*$/m);
      expect(steps.get('7')).toMatch(/Exported 5 entries of tenant demo/);
      expect(steps.get('7')).toMatch(/^PASS/m);
      expect(statSync(join(cwd, '.svc', 'quickstart.json')).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(cwd, '.svc', 'daemon.log'), 'utf8')).not.toMatch(/svct_/);

      // A second quickstart (with the busy-port remedy applied) on the running demo's data dir
      // starts nothing. A second daemon (several may serve one data dir) leaves daemon.json to
      // the demo's, so its stop never leaves discovery naming a dead port.
      const recorded = readFileSync(join(cwd, '.svc', 'daemon.json'), 'utf8');
      const second = await runSvc(
        ['quickstart', '--listen', '127.0.0.1:0', '--console-listen', '127.0.0.1:0'],
        {
          SVC_HOME: join(cwd, '.svc'),
        },
      );
      expect(second.code, second.stderr).toBe(4);
      expect(second.stderr).toMatch(/the demo is already running \(pid \d+, https:\/\/127\.0\.0\.1:\d+\)/);
      expect(second.stderr).toContain('svc quickstart --env');
      const other = await startDaemonProcess([], { SVC_HOME: join(cwd, '.svc') });
      expect(readFileSync(join(cwd, '.svc', 'daemon.json'), 'utf8')).toBe(recorded);
      expect(await other.stop()).toBe(0);
      expect(readFileSync(join(cwd, '.svc', 'daemon.json'), 'utf8')).toBe(recorded);
    } finally {
      expect(await qs.stop()).toBe(0);
    }
    // Ctrl-C says it stopped, on the terminal and in the daemon's log.
    expect(qs.out()).toMatch(/^svc quickstart: stopped/m);
    const log = readFileSync(join(cwd, '.svc', 'daemon.log'), 'utf8');
    expect(log).toMatch(/"msg":"daemon stopping/);
    expect(log).toMatch(/"msg":"daemon stopped"/);

    // A re-run reuses the data dir and its tokens, and --tour runs the walk-through itself.
    const before = tokenIds(join(cwd, '.svc'));
    const again = quickstart(cwd, ['--tour']);
    try {
      await again.ready;
      const out = again.out();
      expect(out).toMatch(/existing data dir/);
      for (const [n, word] of [
        ['1', 'allowed   allowed'],
        ['2', 'refused   policy_denied'],
        ['3', 'deferred'],
        ['4', 'approved'],
        ['5', 'resumed   allowed'],
        ['6', 'receipts'],
        ['7', 'exported'],
        ['8', 'verified  pass'],
      ]) {
        expect(out).toContain(`${n}. ${word}`);
      }
      expect(out).toMatch(/remedy: refund at most 100 USD/);
    } finally {
      expect(await again.stop()).toBe(0);
    }
    expect(tokenIds(join(cwd, '.svc'))).toEqual(before);
    const tokens = await runSvc(['token', 'list', '--tenant', 'demo', '--json'], {
      SVC_HOME: join(cwd, '.svc'),
    });
    expect(tokens.stdout.match(/"token_id"/g)).toHaveLength(2);
  }, 240_000);

  it('refuses a busy port before writing anything, naming the flag to change', async () => {
    const server: Server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const cwd = join(tmp.path, 'busy');
    mkdirSync(cwd);
    try {
      const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [BIN, 'quickstart', '--listen', `127.0.0.1:${port}`, '--console-listen', '127.0.0.1:0'],
          {
            cwd,
            env: { ...process.env, NO_COLOR: '1', SVC_HOME: '' },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (code) => resolve({ code, stderr }));
      });
      expect(r.code).toBe(6);
      expect(r.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
      expect(r.stderr).toMatch(/choose another address with --listen/);
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      server.close();
    }
  }, 120_000);

  it('svc daemon start and svc witness serve on a busy port name the port and the flag', async () => {
    const server: Server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const home = join(tmp.path, 'busy-daemon');
    try {
      await runSvc(['init', '--tenant', 'acme', '--admin', 'alice', '--json'], { SVC_HOME: home });
      const key = (await runSvc(['key', 'show', '--tenant', 'acme', '--json'], { SVC_HOME: home })).stdout;
      await runSvc(['witness', 'key', '--key-file', join(tmp.path, 'witness.pem')], {});
      const [daemon, witness] = await Promise.all([
        runSvc(['daemon', 'start', '--listen', `127.0.0.1:${port}`], { SVC_HOME: home }),
        runSvc(
          [
            'witness',
            'serve',
            '--listen',
            `127.0.0.1:${port}`,
            '--allow-insecure-http',
            '--key-file',
            join(tmp.path, 'witness.pem'),
            '--state',
            join(tmp.path, 'witness-state.json'),
            '--log-key',
            `acme=${(JSON.parse(key) as { public_key: string }).public_key}`,
          ],
          {},
        ),
      ]);
      for (const r of [daemon, witness]) {
        expect(r.code, r.stderr).toBe(6);
        expect(r.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
        expect(r.stderr).toContain('choose another address with --listen, for example --listen 127.0.0.1:0');
        expect(r.stderr).not.toMatch(/try again shortly/);
      }
    } finally {
      server.close();
    }
  }, 120_000);

  it('leaves a data dir it did not make alone', async () => {
    const home = join(tmp.path, 'other');
    await runSvc(['init', '--tenant', 'acme', '--admin', 'alice', '--json'], { SVC_HOME: home });
    const r = await runSvc(['quickstart', '--listen', '127.0.0.1:0', '--console-listen', '127.0.0.1:0'], {
      SVC_HOME: home,
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/svc quickstart did not make/);
    expect(existsSync(join(home, 'quickstart.json'))).toBe(false);
    expect(existsSync(join(home, 'daemon.json'))).toBe(false);
  }, 120_000);
});
