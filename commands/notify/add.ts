import { kekFlags } from '../../src/cli/kek-flags.js';
import { Args, Flags } from '@oclif/core';
import chalk from 'chalk';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import { addDestination, type AddedDestination } from '../../src/provisioning/notify.js';
import { readTextFile } from '../../src/provisioning/text-file.js';
import { durationFlag } from '../../src/cli/duration-flag.js';
import { DESTINATION_KINDS } from '../../src/store/notify-ports.js';

const MINUTE = 60_000;

export default class NotifyAdd extends DataDirCommand {
  static override summary =
    'Add a notification destination to a tenant: a signed webhook, a team-chat channel, a collaboration-suite conversation or email, subscribed to event types.';
  static override description =
    "A webhook's events are signed as Standard Webhooks 1.0 specifies with the secret printed here (whsec_…), sealed in the secret store as notify.ID and never shown again. A chat destination posts approvals with Approve / Deny buttons to --channel or, with --to-approvers, to each approver's chat user id, with the bot token read from --secret-file; a collab destination posts an Adaptive Card to --conversation at the connector --url, with a bot token from the client-credentials --token-url (client secret from --secret-file); an email destination sends over SMTP with STARTTLS to --to, linking to the approval in the console. Secrets given are sealed as notify.ID; the file can be removed afterwards. Only https URLs, or http to a literal loopback address (which the daemon refuses unless started with --notify-allow-loopback-http).";
  static override examples = [
    "<%= config.bin %> notify add ops-hook --tenant acme --kind webhook --url https://hooks.example.org/svc --events 'approval.*'",
    "<%= config.bin %> notify add audit --tenant acme --kind webhook --url https://siem.example.org/in --events '*' --json | jq -r .secret > audit.secret",
    "<%= config.bin %> notify add approvals-chat --tenant acme --kind chat --channel C0123ABCD --secret-file ./bot-token --events 'approval.*'",
    '<%= config.bin %> notify add approvers-mail --tenant acme --kind email --url smtp://mail.example.org:587 --from svc@example.org --to approvers@example.org --console-url https://svc.example.org:8443 --events approval.requested --remind-after 30m',
  ];
  static override args = {
    id: Args.string({ description: 'Destination id (a slug, unique in the tenant).', required: true }),
  };
  static override flags = {
    tenant: tenantFlag({ required: true }),
    kind: Flags.string({
      summary: `The destination kind: ${DESTINATION_KINDS.join(', ')}.`,
      required: true,
    }),
    url: Flags.string({
      summary:
        'webhook: the receiver; chat: the Web API base (default https://slack.com/api); collab: the connector service URL; email: smtp://HOST[:PORT].',
    }),
    events: Flags.string({
      summary: "An event type, a family such as 'approval.*', or '*' (repeatable).",
      multiple: true,
      required: true,
    }),
    'secret-file': Flags.string({
      summary:
        'chat: the bot token; collab: the client secret; email: the SMTP password. Read once and sealed.',
    }),
    channel: Flags.string({ summary: 'chat: the channel id to post to.' }),
    'to-approvers': Flags.boolean({
      summary: "chat: post to each approver's registered chat user id instead of a channel.",
    }),
    conversation: Flags.string({ summary: 'collab: the conversation id to post to.' }),
    'token-url': Flags.string({
      summary: 'collab: the client-credentials token endpoint (default the vendor’s).',
    }),
    'client-id': Flags.string({ summary: "collab: the bot's application (client) id." }),
    scope: Flags.string({ summary: 'collab: the scope asked for (default the vendor’s).' }),
    from: Flags.string({ summary: 'email: the sender address.' }),
    to: Flags.string({ summary: 'email: a recipient address (repeatable).', multiple: true }),
    'smtp-user': Flags.string({ summary: 'email: the SMTP user name (its password from --secret-file).' }),
    'console-url': Flags.string({ summary: "email: the console's URL, for the link to the approval." }),
    'smtp-ca-file': Flags.string({
      summary: "email: a PEM file of the CA of the SMTP server's certificate, besides the system's.",
    }),
    'remind-after': durationFlag({ minMs: 5_000, maxMs: 30 * 24 * 60 * MINUTE })({
      summary: 'Send a pending approval again after this long (5s to 30d).',
    }),
    'escalate-to': Flags.string({
      summary: 'Also send the reminder to this other destination of the tenant.',
    }),
    ...kekFlags,
  };

  async run(): Promise<AddedDestination> {
    const { args, flags } = await this.parse(NotifyAdd);
    const secret =
      flags['secret-file'] === undefined
        ? undefined
        : readTextFile('secret-file', flags['secret-file'], 8192);
    const remind = flags['remind-after'];
    const added = await this.withStore(flags, (store, dir) =>
      addDestination(dir, store, {
        tenantId: flags.tenant,
        id: args.id,
        kind: flags.kind,
        url: flags.url,
        events: flags.events,
        options: {
          channel: flags.channel,
          toApprovers: flags['to-approvers'],
          conversation: flags.conversation,
          tokenUrl: flags['token-url'],
          clientId: flags['client-id'],
          scope: flags.scope,
          from: flags.from,
          to: flags.to,
          smtpUser: flags['smtp-user'],
          consoleUrl: flags['console-url'],
          smtpCaFile: flags['smtp-ca-file'],
        },
        secret,
        remindAfterSeconds: remind === undefined ? undefined : Math.round(remind / 1000),
        escalateTo: flags['escalate-to'],
        now: new Date(),
      }),
    );
    const what = `Added ${added.kind} destination ${added.destination_id} for tenant ${added.tenant_id} (${added.events.join(', ')})`;
    if (added.secret === null) {
      this.log(`${what}.`);
    } else {
      this.note(`${what}. Signing secret, shown once:`);
      this.log(chalk.bold(added.secret));
    }
    return added;
  }
}
