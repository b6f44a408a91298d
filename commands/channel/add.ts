import { Args, Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { CHANNEL_KINDS } from '../../src/core/channel.js';
import { addChannel, channelView, type ChannelView } from '../../src/provisioning/channel.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class ChannelAdd extends DataDirCommand {
  static override summary =
    'Configure an approval channel (team chat or collaboration suite) for one tenant; its callback is POST /approvals/ID/callback.';
  static override examples = [
    '<%= config.bin %> channel add ops-chat --tenant acme --kind chat --signing-secret-ref env:CHAT_SIGNING_SECRET',
    '<%= config.bin %> channel add ops-collab --tenant acme --kind collab --openid-metadata https://login.botframework.com/v1/.well-known/openidconfiguration --app-id 5c1f0a2e-… --issuer https://api.botframework.com',
  ];
  static override args = {
    id: Args.string({ description: 'Channel id (a slug, unique in the deployment).', required: true }),
  };
  static override flags = {
    tenant: tenantFlag({ summary: 'The one tenant whose approvals the channel decides.', required: true }),
    kind: Flags.string({
      summary: 'How the channel proves itself.',
      options: [...CHANNEL_KINDS],
      required: true,
    }),
    'signing-secret-ref': Flags.string({
      summary: 'chat: where the signing secret is: env:NAME, file:/absolute/path or secret:name.',
    }),
    'openid-metadata': Flags.string({
      summary: 'collab: URL of the OpenID metadata document listing the signing keys.',
    }),
    'app-id': Flags.string({ summary: 'collab: the bot application id, required as the token audience.' }),
    issuer: Flags.string({ summary: 'collab: the required token issuer.' }),
  };

  async run(): Promise<ChannelView> {
    const { args, flags } = await this.parse(ChannelAdd);
    const channel = await this.withStore(flags, (store) =>
      addChannel(
        store,
        {
          id: args.id,
          tenantId: flags.tenant,
          kind: flags.kind,
          signingSecretRef: flags['signing-secret-ref'],
          openidMetadataUrl: flags['openid-metadata'],
          appId: flags['app-id'],
          issuer: flags.issuer,
        },
        new Date(),
      ),
    );
    const view = channelView(channel);
    this.log(
      `Added ${channel.kind} channel ${channel.id} for tenant ${channel.tenantId}: POST ${view.callback_path}`,
    );
    return view;
  }
}
