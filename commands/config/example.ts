import { SvcCommand } from '../../src/cli/base-command.js';
import { renderExample } from '../../src/cli/config/config-render.js';
import { defaultSettings } from '../../src/cli/config/config-sources.js';
import { CONFIG_TARGETS, forFlag } from './check.js';

export default class ConfigExample extends SvcCommand {
  static override summary =
    'Print a commented configuration file: every key with its summary, type, variable and default.';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> config example > svc.yaml',
    '<%= config.bin %> config example --for witness > witness.yaml',
  ];
  static override flags = { for: forFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(ConfigExample);
    const target = CONFIG_TARGETS[flags.for as keyof typeof CONFIG_TARGETS];
    this.log(renderExample(target.command, await defaultSettings(await target.load())));
  }
}
