import { Args, Flags } from '@oclif/core';
import { SvcCommand } from '../../src/cli/base-command.js';
import type { Configurable } from '../../src/cli/config/config-key.js';
import { checkConfig } from '../../src/cli/config/config-sources.js';
import { counted } from '../../src/cli/plural.js';
import { SvcError } from '../../src/core/errors.js';

/** The commands a configuration file configures, loaded only when asked for (the daemon's is heavy). */
export const CONFIG_TARGETS = {
  daemon: { command: 'daemon start', load: async () => (await import('../daemon/start.js')).default },
  console: { command: 'console start', load: async () => (await import('../console/start.js')).default },
  witness: { command: 'witness serve', load: async () => (await import('../witness/serve.js')).default },
} satisfies Record<string, { command: string; load: () => Promise<Configurable> }>;

export const forFlag = Flags.string({
  summary: 'The command the file is for: daemon (svc daemon start), console or witness (svc witness serve).',
  options: Object.keys(CONFIG_TARGETS),
  default: 'daemon',
});

export default class ConfigCheck extends SvcCommand {
  static override summary =
    'Check a configuration file without starting anything: every unknown key and wrong value, each with its path.';
  static override description =
    'Checks the file alone: its keys, their types and values. What needs the whole command line (--tls-cert with --tls-key, a required --key-file) is checked when the command starts, or by its --print-config.';
  static override examples = [
    '<%= config.bin %> config check svc.yaml',
    '<%= config.bin %> config check witness.yaml --for witness',
  ];
  static override args = {
    file: Args.string({ description: 'The YAML configuration file.', required: true }),
  };
  static override flags = { for: forFlag };

  async run(): Promise<{ file: string; for: string; keys: number }> {
    const { args, flags } = await this.parse(ConfigCheck);
    const target = CONFIG_TARGETS[flags.for as keyof typeof CONFIG_TARGETS];
    const r = await checkConfig(await target.load(), args.file, process.cwd());
    if (r.problems.length > 0) {
      throw new SvcError('usage', r.problems.join('\n'), {
        field: 'config',
        remedy: `svc config example --for ${flags.for} prints every key with its type and default`,
      });
    }
    this.show(() => `${args.file}: valid for svc ${target.command} (${counted(r.keys, 'key', 'keys')})`);
    return { file: r.path, for: `svc ${target.command}`, keys: r.keys };
  }
}
