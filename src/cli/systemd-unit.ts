import { posix } from 'node:path';
import { SvcError } from '../core/errors.js';

export interface UnitOptions {
  /** the config file `daemon start --config` reads */
  config: string;
  /** the dedicated system user (and group) the daemon runs as */
  user: string;
  /** the data dir: the one path the daemon may write */
  dataDir: string;
  /** the installed `svc` executable */
  bin: string;
  /** the directory of the Node.js that runs `bin` (its shebang asks `env` for `node`) */
  nodeDir: string;
}

export const DEFAULT_UNIT_USER = 'svc';
export const DEFAULT_UNIT_DATA_DIR = '/var/lib/svc';

/**
 * A path systemd reads as written. `%` (specifiers), `$` (variables), quotes, backslashes,
 * white space and control characters all mean something in a unit file, so only a plain
 * set is accepted rather than escaped: a path that needs escaping is refused, never rewritten.
 */
const PLAIN_PATH = /^\/[A-Za-z0-9._+@,:/-]*$/;
/** useradd's portable name: what `useradd --system` accepts everywhere. */
const USER_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;

function absolutePath(flag: string, value: string, what = `--${flag}`): string {
  if (!value.startsWith('/')) {
    throw new SvcError('usage', `${what} must be an absolute path; got ${JSON.stringify(value)}`, {
      field: flag,
      remedy: `pass the full path, starting with /`,
    });
  }
  if (!PLAIN_PATH.test(value)) {
    throw new SvcError(
      'usage',
      `${what} may hold only letters, digits and . _ + @ , : - / (the characters a systemd unit reads as written); got ${JSON.stringify(value)}`,
      {
        field: flag,
        remedy: 'choose a path without spaces, quotes, %, $, backslashes or control characters',
      },
    );
  }
  const normal = posix.normalize(value);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

/** `StateDirectory=` takes a name relative to /var/lib: used when the data dir is one below it. */
function stateDirectory(dataDir: string): string | undefined {
  const m = /^\/var\/lib\/([^/]+)$/.exec(dataDir);
  return m?.[1];
}

/**
 * The systemd unit that runs `svc daemon start` as a dedicated user in a read-only system,
 * with only the data dir writable. Throws a `usage` error naming the flag for an input that
 * would not survive unit syntax.
 */
export function systemdUnit(opts: UnitOptions): string {
  const config = absolutePath('config', opts.config);
  const dataDir = absolutePath('data-dir', opts.dataDir);
  if (dataDir === '/') {
    throw new SvcError('usage', '--data-dir must not be / (it would make the whole system writable)', {
      field: 'data-dir',
      remedy: `pass the data dir itself, e.g. ${DEFAULT_UNIT_DATA_DIR}`,
    });
  }
  const bin = absolutePath('bin', opts.bin);
  const nodeDir = absolutePath('bin', opts.nodeDir, 'the directory of the running Node.js');
  if (!USER_NAME.test(opts.user)) {
    throw new SvcError(
      'usage',
      `--user must be a system user name (a lower-case letter or _, then up to 31 lower-case letters, digits, _ or -); got ${JSON.stringify(opts.user)}`,
      { field: 'user', remedy: `e.g. --user ${DEFAULT_UNIT_USER}` },
    );
  }
  if (opts.user === 'root') {
    throw new SvcError('usage', '--user must be a dedicated user, not root', {
      field: 'user',
      remedy: `create one with \`useradd --system --home-dir ${dataDir} --shell /usr/sbin/nologin ${DEFAULT_UNIT_USER}\``,
    });
  }
  const state = stateDirectory(dataDir);
  const path = [...new Set([nodeDir, '/usr/local/bin', '/usr/bin', '/bin'])].join(':');
  return [
    '[Unit]',
    'Description=svc governance daemon',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    // Type=notify would need sd_notify from Node, which has no maintained binding: the daemon
    // is up once it logs "listening on", and systemd restarts it if it exits.
    'Type=simple',
    `User=${opts.user}`,
    `Group=${opts.user}`,
    // The Node.js that printed this unit: systemd's default PATH may not hold it.
    `Environment=PATH=${path}`,
    `ExecStart=${bin} daemon start --config ${config} --data-dir ${dataDir}`,
    'ExecReload=/bin/kill -HUP $MAINPID',
    'KillSignal=SIGTERM',
    'TimeoutStopSec=30',
    'Restart=on-failure',
    'RestartSec=2',
    'UMask=0077',
    ...(state === undefined ? [] : [`StateDirectory=${state}`, 'StateDirectoryMode=0700']),
    'ProtectSystem=strict',
    `ReadWritePaths=${dataDir}`,
    'ProtectHome=yes',
    'PrivateTmp=yes',
    'PrivateDevices=yes',
    'NoNewPrivileges=yes',
    '# No capabilities: a port below 1024 needs a drop-in with',
    '# AmbientCapabilities=CAP_NET_BIND_SERVICE and CapabilityBoundingSet=CAP_NET_BIND_SERVICE.',
    'CapabilityBoundingSet=',
    'AmbientCapabilities=',
    'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK',
    'RestrictNamespaces=yes',
    'RestrictRealtime=yes',
    'RestrictSUIDSGID=yes',
    'RemoveIPC=yes',
    'LockPersonality=yes',
    'ProtectKernelTunables=yes',
    'ProtectKernelModules=yes',
    'ProtectKernelLogs=yes',
    'ProtectControlGroups=yes',
    'ProtectClock=yes',
    'ProtectHostname=yes',
    'SystemCallArchitectures=native',
    'SystemCallFilter=@system-service',
    'SystemCallErrorNumber=EPERM',
    '# MemoryDenyWriteExecute is not set: the V8 JIT in Node.js needs memory that is',
    '# writable and executable, and the daemon would not start.',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}
