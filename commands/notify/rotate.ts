import { kekFlags } from '../../src/cli/kek-flags.js';
import { Args, Flags } from '@oclif/core';
import chalk from 'chalk';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import { rotateDestinationSecret, type RotatedSecret } from '../../src/provisioning/notify-rotation.js';
import { readTextFile } from '../../src/provisioning/text-file.js';

export default class NotifyRotate extends DataDirCommand {
  static override summary =
    "Replace a notification destination's secret: a webhook gets a new signing secret, shown once, and the old one still signs for 24 hours.";
  static override description =
    'Webhook: deliveries carry a signature with each secret (Standard Webhooks), so a receiver verifying with the old or the new secret passes for 24 hours, and only the new one after. Chat, collab and email: --secret-file replaces the bot token, client secret or SMTP password at once. The daemon opens secrets at each attempt: no restart.';
  static override examples = [
    '<%= config.bin %> notify rotate ops-hook --tenant acme --json | jq -r .secret > ops-hook.secret',
    '<%= config.bin %> notify rotate approvals-chat --tenant acme --secret-file ./new-bot-token',
  ];
  static override args = { id: Args.string({ description: 'Destination id.', required: true }) };
  static override flags = {
    tenant: tenantFlag({ required: true }),
    'secret-file': Flags.string({
      summary:
        'chat, collab, email: the new bot token, client secret or SMTP password. Read once and sealed.',
    }),
    ...kekFlags,
  };

  async run(): Promise<RotatedSecret> {
    const { args, flags } = await this.parse(NotifyRotate);
    const secret =
      flags['secret-file'] === undefined
        ? undefined
        : readTextFile('secret-file', flags['secret-file'], 8192);
    const rotated = await this.withStore(flags, (store, dir) =>
      rotateDestinationSecret(dir, store, { tenantId: flags.tenant, id: args.id, secret, now: new Date() }),
    );
    const what = `Rotated the secret of ${rotated.kind} destination ${rotated.destination_id} of tenant ${rotated.tenant_id}`;
    if (rotated.secret === null) {
      this.log(`${what}.`);
    } else {
      const overlap =
        rotated.previous_valid_until === null
          ? ''
          : `; the old one also signs until ${rotated.previous_valid_until}`;
      this.note(`${what}${overlap}. New signing secret, shown once:`);
      this.log(chalk.bold(rotated.secret));
    }
    return rotated;
  }
}
