import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, runSvc } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

const analyze = spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' });
const HAS_SYSTEMD_ANALYZE = analyze.status === 0;
if (!HAS_SYSTEMD_ANALYZE) {
  console.warn('skipping systemd-analyze verify: systemd-analyze is not installed (Debian package systemd)');
}

const scratch = tmpDir('svc-unit-');
afterAll(() => scratch.cleanup());

/** `systemd-analyze verify` on a unit file: exit code and everything it said. */
function verify(unit: string, name: string): { status: number | null; said: string } {
  const file = join(scratch.path, name);
  writeFileSync(file, unit);
  const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
  return { status: r.status, said: `${r.stdout}${r.stderr}`.trim() };
}

describe('svc daemon unit', () => {
  it.skipIf(!HAS_SYSTEMD_ANALYZE)(
    'prints a unit that systemd-analyze verify accepts without a warning',
    async () => {
      // ExecStart must name an executable that exists: the built binary stands in for the installed one.
      for (const dataDir of ['/var/lib/svc', '/srv/svc']) {
        const r = await runSvc([
          'daemon',
          'unit',
          '--config',
          '/etc/svc/svc.yaml',
          '--data-dir',
          dataDir,
          '--bin',
          BIN,
        ]);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        expect(r.stdout).toContain(
          `ExecStart=${BIN} daemon start --config /etc/svc/svc.yaml --data-dir ${dataDir}`,
        );
        expect(verify(r.stdout, 'svc.service')).toEqual({ status: 0, said: '' });
      }
    },
  );

  it.skipIf(!HAS_SYSTEMD_ANALYZE)(
    'is checked for real: a missing ExecStart binary fails the verify',
    async () => {
      const r = await runSvc([
        'daemon',
        'unit',
        '--config',
        '/etc/svc/svc.yaml',
        '--bin',
        join(scratch.path, 'no-svc'),
      ]);
      expect(r.code).toBe(0);
      const v = verify(r.stdout, 'missing.service');
      expect(v.status).not.toBe(0);
      expect(v.said).toMatch(/no-svc is not executable/);
    },
  );

  it('starts the svc running it by default', async () => {
    const r = await runSvc(['daemon', 'unit', '--config', '/etc/svc/svc.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `ExecStart=${BIN} daemon start --config /etc/svc/svc.yaml --data-dir /var/lib/svc`,
    );
    expect(r.stdout).toContain('User=svc\n');
  });

  it('guards the data dir the config file names, and refuses a file that does not check', async () => {
    const config = join(scratch.path, 'svc.yaml');
    writeFileSync(config, 'data-dir: /srv/svc-data\nanchor-entries: 500\n');
    const r = await runSvc(['daemon', 'unit', '--config', config]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`--config ${config} --data-dir /srv/svc-data\n`);
    expect(r.stdout).toContain('ReadWritePaths=/srv/svc-data\n');
    // The flag still wins, as it does for the daemon.
    const flagged = await runSvc(['daemon', 'unit', '--config', config, '--data-dir', '/srv/other']);
    expect(flagged.stdout).toContain('ReadWritePaths=/srv/other\n');

    const bad = join(scratch.path, 'bad.yaml');
    writeFileSync(bad, 'data-dir: /srv/svc-data\nlisen: 127.0.0.1:0\n');
    const refused = await runSvc(['daemon', 'unit', '--config', bad]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('lisen: unknown key; did you mean listen?');
  });

  it('refuses an input that would break the unit, naming the flag, and prints nothing', async () => {
    for (const [flag, value, message] of [
      ['--data-dir', 'relative/dir', '--data-dir must be an absolute path'],
      ['--config', '/etc/svc/my svc.yaml', '--config may hold only'],
      ['--user', 'root', '--user must be a dedicated user, not root'],
    ] as const) {
      const args = [
        'daemon',
        'unit',
        ...(flag === '--config' ? [] : ['--config', '/etc/svc/svc.yaml']),
        flag,
        value,
      ];
      const r = await runSvc(args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(message);
    }
  });

  it('needs --config', async () => {
    const r = await runSvc(['daemon', 'unit']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Missing required flag config');
    expect(r.stdout).toBe('');
  });
});
