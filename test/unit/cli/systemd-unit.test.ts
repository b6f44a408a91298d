import { describe, expect, it } from 'vitest';
import { systemdUnit, type UnitOptions } from '../../../src/cli/systemd-unit.js';
import { codedError } from '../../helpers/coded-error.js';

const BASE: UnitOptions = {
  config: '/etc/svc/svc.yaml',
  user: 'svc',
  dataDir: '/var/lib/svc',
  bin: '/usr/local/bin/svc',
  nodeDir: '/opt/node/bin',
};

/** The unit's `Key=value` lines of a section, comments left out, in order. */
function section(unit: string, name: string): string[] {
  const lines = unit.split('\n');
  const start = lines.indexOf(`[${name}]`);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('['));
  return lines.slice(start + 1, end < 0 ? undefined : end).filter((l) => l !== '' && !l.startsWith('#'));
}

describe('the systemd unit', () => {
  it('runs the daemon as the dedicated user with the config, a read-only system and only the data dir writable', () => {
    const service = section(systemdUnit(BASE), 'Service');
    for (const line of [
      'Type=simple',
      'User=svc',
      'Group=svc',
      'ExecStart=/usr/local/bin/svc daemon start --config /etc/svc/svc.yaml --data-dir /var/lib/svc',
      'ExecReload=/bin/kill -HUP $MAINPID',
      'KillSignal=SIGTERM',
      'Restart=on-failure',
      'ProtectSystem=strict',
      'ReadWritePaths=/var/lib/svc',
      'StateDirectory=svc',
      'StateDirectoryMode=0700',
      'NoNewPrivileges=yes',
      'PrivateTmp=yes',
      'ProtectHome=yes',
      'CapabilityBoundingSet=',
      'LockPersonality=yes',
      'SystemCallFilter=@system-service',
      'UMask=0077',
      'Environment=PATH=/opt/node/bin:/usr/local/bin:/usr/bin:/bin',
    ])
      expect(service).toContain(line);
    expect(service.some((l) => l.startsWith('TimeoutStopSec='))).toBe(true);
    expect(service.some((l) => l.startsWith('RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6'))).toBe(true);
    // V8's JIT needs writable and executable pages: the daemon would not start with it.
    expect(service.some((l) => l.startsWith('MemoryDenyWriteExecute'))).toBe(false);
    expect(section(systemdUnit(BASE), 'Install')).toEqual(['WantedBy=multi-user.target']);
  });

  it('uses StateDirectory only for a data dir directly under /var/lib', () => {
    const service = section(systemdUnit({ ...BASE, dataDir: '/srv/svc/' }), 'Service');
    expect(service).toContain('ReadWritePaths=/srv/svc');
    expect(service.some((l) => l.startsWith('StateDirectory'))).toBe(false);
    expect(service).toContain(
      'ExecStart=/usr/local/bin/svc daemon start --config /etc/svc/svc.yaml --data-dir /srv/svc',
    );
  });

  it('does not repeat the Node.js directory on PATH', () => {
    const service = section(systemdUnit({ ...BASE, nodeDir: '/usr/bin' }), 'Service');
    expect(service).toContain('Environment=PATH=/usr/bin:/usr/local/bin:/bin');
  });

  const refused: [string, Partial<UnitOptions>, RegExp][] = [
    ['config', { config: 'svc.yaml' }, /--config must be an absolute path/],
    ['config', { config: '/etc/svc/my svc.yaml' }, /--config may hold only/],
    ['config', { config: '/etc/svc/svc.yaml\nExecStartPre=/bin/sh' }, /--config may hold only/],
    ['data-dir', { dataDir: '/var/lib/%n' }, /--data-dir may hold only/],
    ['data-dir', { dataDir: '/' }, /--data-dir must not be \//],
    ['data-dir', { dataDir: '//' }, /--data-dir must not be \//],
    ['bin', { bin: '/usr/bin/$HOME' }, /--bin may hold only/],
    ['bin', { bin: 'svc' }, /--bin must be an absolute path/],
    ['bin', { nodeDir: '/opt/my node/bin' }, /the directory of the running Node.js may hold only/],
    ['user', { user: 'Svc User' }, /--user must be a system user name/],
    ['user', { user: 'svc\nUser=root' }, /--user must be a system user name/],
    ['user', { user: 'root' }, /--user must be a dedicated user, not root/],
  ];
  it.each(refused)('refuses a bad --%s, naming the flag (%j)', (field, bad, message) => {
    const err = codedError(() => systemdUnit({ ...BASE, ...bad }));
    expect(err.code).toBe('usage');
    expect(err.field).toBe(field);
    expect(err.reason).toMatch(message);
  });
});
