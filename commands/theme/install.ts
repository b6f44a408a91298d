import { Args, Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { installTheme, type InstalledTheme } from '../../src/provisioning/theme.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class ThemeInstall extends DataDirCommand {
  static override summary =
    "Validate a provisioned theme file, place the files it names in the managed asset store, and store it as the tenant's next theme revision.";
  static override examples = [
    '<%= config.bin %> theme install theme.json --tenant acme --assets ./brand',
    '<%= config.bin %> theme install theme.json --tenant acme --json',
  ];
  static override args = {
    file: Args.string({ description: 'The theme file (JSON, version 1).', required: true }),
  };
  static override flags = {
    tenant: tenantFlag({ required: true }),
    assets: Flags.string({
      summary: 'Directory holding the logo and font files the theme names under /tenant-assets/.',
    }),
  };

  async run(): Promise<InstalledTheme> {
    const { args, flags } = await this.parse(ThemeInstall);
    const result = await this.withStore(flags, (store, dir) =>
      installTheme(store, dir, {
        tenantId: flags.tenant,
        file: args.file,
        ...(flags.assets !== undefined ? { assetsDir: flags.assets } : {}),
        now: new Date(),
      }),
    );
    for (const a of result.assets) this.note(`placed ${a.source} (${a.content_type}) as ${a.url}`);
    this.log(`Installed theme revision ${result.revision} for tenant ${result.tenant_id}`);
    return result;
  }
}
