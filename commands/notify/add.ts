import { Args, Flags } from '@oclif/core';
import chalk from 'chalk';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import { addDestination, type AddedDestination } from '../../src/provisioning/notify.js';

export default class NotifyAdd extends DataDirCommand {
  static override summary =
    'Add a notification destination to a tenant: a webhook subscribed to event types; its signing secret is shown once.';
  static override description =
    'Events are signed as Standard Webhooks 1.0 specifies with the secret printed here (whsec_…), which is sealed in the secret store as notify.ID and never shown again. Only https URLs, or http to a literal loopback address (which the daemon refuses unless started with --notify-allow-loopback-http).';
  static override examples = [
    "<%= config.bin %> notify add ops-hook --tenant acme --kind webhook --url https://hooks.example.org/svc --events 'approval.*'",
    "<%= config.bin %> notify add audit --tenant acme --kind webhook --url https://siem.example.org/in --events '*' --json | jq -r .secret > audit.secret",
  ];
  static override args = {
    id: Args.string({ description: 'Destination id (a slug, unique in the tenant).', required: true }),
  };
  static override flags = {
    tenant: tenantFlag({ required: true }),
    kind: Flags.string({
      summary: 'The destination kind: webhook (chat, collab and email are not yet supported).',
      required: true,
    }),
    url: Flags.string({
      summary: 'The receiver: an https URL (http only to a literal loopback address).',
      required: true,
    }),
    events: Flags.string({
      summary: "An event type, a family such as 'approval.*', or '*' (repeatable).",
      multiple: true,
      required: true,
    }),
  };

  async run(): Promise<AddedDestination> {
    const { args, flags } = await this.parse(NotifyAdd);
    const added = await this.withStore(flags, (store, dir) =>
      addDestination(dir, store, {
        tenantId: flags.tenant,
        id: args.id,
        kind: flags.kind,
        url: flags.url,
        events: flags.events,
        now: new Date(),
      }),
    );
    this.note(
      `Added ${added.kind} destination ${added.destination_id} for tenant ${added.tenant_id} (${added.events.join(', ')}). Signing secret, shown once:`,
    );
    this.log(chalk.bold(added.secret));
    return added;
  }
}
