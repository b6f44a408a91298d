import { Args } from '@oclif/core';
import { renderAccessRequest, type AccessRequest } from '../../src/cli/access.js';
import { DaemonCommand } from '../../src/cli/daemon-command.js';
import { segment } from '../../src/cli/daemon-client.js';

export default class AccessShow extends DaemonCommand {
  static override summary =
    'Show an access request: its status, its cards, and the entitlement an approval created.';
  static override examples = ['<%= config.bin %> access show acr_0123…'];
  static override args = { id: Args.string({ description: 'Access request id.', required: true }) };

  async run(): Promise<AccessRequest> {
    const { args, flags } = await this.parse(AccessShow);
    const request = await this.withDaemon(flags, (client) =>
      client.get<AccessRequest>(`/v1/access-requests/${segment(args.id)}`),
    );
    this.show(() => renderAccessRequest(request));
    return request;
  }
}
