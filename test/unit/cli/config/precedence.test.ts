import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import DaemonStart from '../../../../commands/daemon/start.js';
import { effectiveSettings, oclifParse, type Origin } from '../../../../src/cli/config/config-sources.js';
import { DEFAULT_ANCHOR_ENTRIES } from '../../../../src/daemon/anchor-schedule.js';
import { tmpDir } from '../../../helpers/tmp.js';

const dir = tmpDir('svc-config-precedence-');
afterAll(() => dir.cleanup());

const KEY = '0y7X88EwmgvP1RMkF+Set8FXqPz8V7VxNvqfNgYW4eM=';
const pin = (n: number) => `http://127.0.0.1:${n}=w${n}=${KEY}`;

/** One key, and a value for it from each source, told apart by what oclif finally holds. */
interface Row {
  key: string;
  flag: string[];
  env: string;
  file: unknown;
  parsed: { flag: unknown; env: unknown; file: unknown; default: unknown };
}

const ROWS: Row[] = [
  {
    key: 'listen',
    flag: ['--listen', '127.0.0.1:1001'],
    env: '127.0.0.1:1002',
    file: '127.0.0.1:1003',
    parsed: {
      flag: '127.0.0.1:1001',
      env: '127.0.0.1:1002',
      file: '127.0.0.1:1003',
      default: '127.0.0.1:8090',
    },
  },
  {
    key: 'anchor-entries',
    flag: ['--anchor-entries', '11'],
    env: '12',
    file: 13,
    parsed: { flag: 11, env: 12, file: 13, default: DEFAULT_ANCHOR_ENTRIES },
  },
  {
    key: 'anchor-interval',
    flag: ['--anchor-interval', '1m'],
    env: '2m',
    file: '3m',
    parsed: { flag: 60_000, env: 120_000, file: 180_000, default: 300_000 },
  },
  {
    key: 'witness',
    flag: ['--witness', pin(1), '--witness', pin(2)],
    env: `${pin(3)},${pin(4)}`,
    file: [pin(5)],
    parsed: { flag: [pin(1), pin(2)], env: [pin(3), pin(4)], file: [pin(5)], default: undefined },
  },
  // A switch both ways: a flag turns off what the environment turns on, and on what it turns off.
  {
    key: 'allow-insecure-http',
    flag: ['--no-allow-insecure-http'],
    env: 'true',
    file: false,
    parsed: { flag: false, env: true, file: false, default: false },
  },
  {
    key: 'allow-insecure-http',
    flag: ['--allow-insecure-http'],
    env: '0',
    file: true,
    parsed: { flag: true, env: false, file: true, default: false },
  },
  {
    key: 'metrics-tenant-label',
    flag: ['--no-metrics-tenant-label'],
    env: '1',
    file: false,
    parsed: { flag: false, env: true, file: false, default: false },
  },
];

const envName = (key: string) => `SVC_${key.toUpperCase().replaceAll('-', '_')}`;
let n = 0;

describe('precedence: flag > SVC_* variable > file > default', () => {
  for (const row of ROWS) {
    for (const [flag, env, file] of [
      [false, false, false],
      [false, false, true],
      [false, true, false],
      [false, true, true],
      [true, false, false],
      [true, false, true],
      [true, true, false],
      [true, true, true],
    ] as const) {
      const winner = flag ? 'flag' : env ? 'env' : file ? 'file' : 'default';
      it(`${row.key} ${row.parsed.flag === true ? '(on) ' : ''}from ${[flag && 'flag', env && 'env', file && 'file'].filter(Boolean).join(' + ') || 'nothing'}: the ${winner} wins`, async () => {
        const path = join(dir.path, `c${n++}.yaml`);
        // metrics-tenant-label needs the metrics listener, from the file so it is not a flag.
        const base = row.key === 'metrics-tenant-label' ? { 'metrics-listen': '127.0.0.1:0' } : {};
        writeFileSync(path, stringify({ ...base, ...(file ? { [row.key]: row.file } : {}) }));
        const argv = ['--config', path, ...(flag ? row.flag : [])];
        const vars = env ? { [envName(row.key)]: row.env } : {};
        const s = await effectiveSettings(DaemonStart, argv, vars, oclifParse(DaemonStart), {
          cwd: dir.path,
        });
        // An absent switch is undefined to oclif, which the commands read as off.
        const got = typeof row.parsed.flag === 'boolean' ? (s.flags[row.key] ?? false) : s.flags[row.key];
        expect(got).toEqual(row.parsed[winner]);
        const origin: Origin =
          winner === 'env'
            ? { source: 'env', variable: envName(row.key) }
            : winner === 'file'
              ? { source: 'file', line: Object.keys(base).length + 1 }
              : { source: winner };
        expect(s.origins[row.key]).toEqual(origin);
      });
    }
  }
});

describe('the variables that predate the file', () => {
  it('data-dir: --data-dir, else SVC_HOME, else the file (relative to the file), else unset', async () => {
    const sub = join(dir.path, 'etc');
    const path = join(dir.path, 'home.yaml');
    writeFileSync(path, 'data-dir: state/svc\n');
    const parse = oclifParse(DaemonStart);
    const run = (argv: string[], env: NodeJS.ProcessEnv) =>
      effectiveSettings(DaemonStart, ['--config', path, ...argv], env, parse, { cwd: sub });
    expect((await run([], {})).flags['data-dir']).toBe(join(dir.path, 'state/svc'));
    const home = await run([], { SVC_HOME: '/srv/svc' });
    expect(home.flags['data-dir']).toBe('/srv/svc');
    expect(home.origins['data-dir']).toEqual({ source: 'env', variable: 'SVC_HOME' });
    expect((await run(['--data-dir', 'x'], { SVC_HOME: '/srv/svc' })).flags['data-dir']).toBe('x');
    // An empty SVC_HOME was always unset: still so.
    expect((await run([], { SVC_HOME: '' })).origins['data-dir']).toEqual({ source: 'file', line: 1 });
    // SVC_DATA_DIR is not a name of it: data-dir keeps SVC_HOME.
    expect((await run([], { SVC_DATA_DIR: '/elsewhere' })).flags['data-dir']).toBe(
      join(dir.path, 'state/svc'),
    );
  });

  it('store: SVC_STORE beats the file; the client variables never become daemon settings', async () => {
    const path = join(dir.path, 'store.yaml');
    writeFileSync(path, 'store: sqlite\n');
    const env = {
      SVC_STORE: 'postgres://svc@db.example/svc',
      SVC_TOKEN: 'svc_abcdefghijklmnop',
      SVC_ENDPOINT: 'http://127.0.0.1:1',
      SVC_CA_CERT: 'ca.pem',
    };
    const s = await effectiveSettings(DaemonStart, ['--config', path], env, oclifParse(DaemonStart));
    expect(s.flags.store).toBe('postgres://svc@db.example/svc');
    expect(s.flags['client-ca']).toBeUndefined();
    const fromEnv = Object.entries(s.origins).filter(([, o]) => o.source === 'env');
    expect(fromEnv).toEqual([['store', { source: 'env', variable: 'SVC_STORE' }]]);
  });

  it('SVC_CONFIG names the file when --config does not; --config wins over it', async () => {
    const a = join(dir.path, 'a.yaml');
    const b = join(dir.path, 'b.yaml');
    writeFileSync(a, 'anchor-entries: 21\n');
    writeFileSync(b, 'anchor-entries: 22\n');
    const parse = oclifParse(DaemonStart);
    const byEnv = await effectiveSettings(DaemonStart, [], { SVC_CONFIG: a }, parse);
    expect(byEnv.flags['anchor-entries']).toBe(21);
    expect(byEnv.file).toMatchObject({ path: a, from: 'env' });
    const byFlag = await effectiveSettings(DaemonStart, ['--config', b], { SVC_CONFIG: a }, parse);
    expect(byFlag.flags['anchor-entries']).toBe(22);
  });
});

describe('relative paths in the file', () => {
  it("resolve against the file's directory; on the command line, against the working directory", async () => {
    const path = join(dir.path, 'conf', 'paths.yaml');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir.path, 'conf'), { recursive: true });
    writeFileSync(
      path,
      stringify({
        'tls-cert': 'tls/cert.pem',
        'tls-key': '/etc/svc/key.pem',
        'integration-ops': 'ops.yaml',
        witness: [`https://w.example=w1=keys/w1.pem`, pin(7)],
        'witness-ca': ['w1=ca/w1.pem'],
      }),
    );
    const s = await effectiveSettings(
      DaemonStart,
      ['--config', path, '--metrics-listen', '127.0.0.1:0', '--metrics-token-file', 'm.token'],
      {},
      oclifParse(DaemonStart),
      { cwd: '/' },
    );
    const conf = join(dir.path, 'conf');
    expect(s.flags['tls-cert']).toBe(join(conf, 'tls/cert.pem'));
    expect(s.flags['tls-key']).toBe('/etc/svc/key.pem');
    expect(s.flags['integration-ops']).toBe(join(conf, 'ops.yaml'));
    // The key of a pin is a file when it is not key text; key text stays as written.
    expect(s.flags.witness).toEqual([`https://w.example=w1=${join(conf, 'keys/w1.pem')}`, pin(7)]);
    expect(s.flags['witness-ca']).toEqual([`w1=${join(conf, 'ca/w1.pem')}`]);
    expect(s.flags['metrics-token-file']).toBe('m.token');
  });
});

describe('the flag rules hold whatever the source', () => {
  it('--tls-cert from the file still needs --tls-key, and the refusal says where it came from', async () => {
    const path = join(dir.path, 'half.yaml');
    writeFileSync(path, 'tls-cert: c.pem\n');
    const err = await effectiveSettings(DaemonStart, ['--config', path], {}, oclifParse(DaemonStart)).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'usage' });
    expect((err as Error).message).toContain(
      'All of the following must be provided when using --tls-cert: --tls-key',
    );
    expect((err as Error).message).toContain('--tls-cert from the config file');
  });

  it('--no-X turns off what the file turns on, and does not then count as given for exclusivity', async () => {
    const path = join(dir.path, 'insecure.yaml');
    writeFileSync(path, 'allow-insecure-http: true\n');
    const s = await effectiveSettings(
      DaemonStart,
      ['--config', path, '--no-allow-insecure-http', '--tls-cert', 'c.pem', '--tls-key', 'k.pem'],
      {},
      oclifParse(DaemonStart),
    );
    expect(s.flags['allow-insecure-http'] ?? false).toBe(false);
    expect(s.flags['tls-cert']).toBe('c.pem');
    expect(s.origins['allow-insecure-http']).toEqual({ source: 'flag' });
  });

  it('plain HTTP from the environment is still exclusive with a TLS certificate from a flag', async () => {
    const err = await effectiveSettings(
      DaemonStart,
      ['--tls-cert', 'c.pem', '--tls-key', 'k.pem'],
      { SVC_ALLOW_INSECURE_HTTP: '1' },
      oclifParse(DaemonStart),
    ).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/cannot also be provided when using --allow-insecure-http/);
    expect((err as Error).message).toContain('--allow-insecure-http from env SVC_ALLOW_INSECURE_HTTP');
  });
});
