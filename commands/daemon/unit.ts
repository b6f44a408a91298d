import { dirname, resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { SvcCommand } from '../../src/cli/base-command.js';
import { fileSetting } from '../../src/cli/config/config-lookup.js';
import { configKeys } from '../../src/cli/config/config-key.js';
import DaemonStart from './start.js';
import { DEFAULT_UNIT_DATA_DIR, DEFAULT_UNIT_USER, systemdUnit } from '../../src/cli/systemd-unit.js';

/**
 * The unit passes `--data-dir` and makes only that path writable: it must be the data dir the
 * file names, or the daemon would start on one directory while the unit guards another.
 */
async function configuredDataDir(config: string): Promise<string | undefined> {
  const dataDir = await fileSetting(config, configKeys(DaemonStart), 'data-dir');
  return typeof dataDir === 'string' ? dataDir : undefined;
}

export default class DaemonUnit extends SvcCommand {
  static override summary =
    'Print a systemd unit that runs the daemon as a dedicated user with only its data dir writable.';
  static override description =
    'Save it as /etc/systemd/system/svc.service, create the user with `useradd --system`, then `systemctl daemon-reload && systemctl enable --now svc`. Paths must be absolute and plain (no spaces, quotes, % or $).';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> daemon unit --config /etc/svc/svc.yaml > /etc/systemd/system/svc.service',
    '<%= config.bin %> daemon unit --config /etc/svc/svc.yaml --user svc --data-dir /srv/svc --bin /usr/local/bin/svc',
  ];
  static override flags = {
    config: Flags.string({ summary: 'Config file the daemon starts with (absolute path).', required: true }),
    user: Flags.string({ summary: 'Dedicated system user and group to run as.', default: DEFAULT_UNIT_USER }),
    'data-dir': Flags.string({
      summary: `Data dir: the only path the daemon may write (absolute path; default: the config file's data-dir when it exists and sets one, else ${DEFAULT_UNIT_DATA_DIR}).`,
    }),
    bin: Flags.string({
      summary: 'The svc executable to start (default: the one running this command).',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonUnit);
    // process.argv[1] is the `svc` on PATH (the global install's link), which survives upgrades.
    const bin = flags.bin ?? resolve(process.argv[1] ?? 'svc');
    process.stdout.write(
      systemdUnit({
        config: flags.config,
        user: flags.user,
        dataDir: flags['data-dir'] ?? (await configuredDataDir(flags.config)) ?? DEFAULT_UNIT_DATA_DIR,
        bin,
        nodeDir: dirname(process.execPath),
      }),
    );
  }
}
