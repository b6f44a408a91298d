import { Args } from '@oclif/core';
import { noteFlag, renderAccessRequest, type AccessStep } from '../../src/cli/access.js';
import { DaemonCommand } from '../../src/cli/daemon-command.js';
import { segment } from '../../src/cli/daemon-client.js';

export default class AccessRevoke extends DaemonCommand {
  static override summary =
    'Withdraw a pending access request, or end an approved one and its entitlement; new decisions are refused at once.';
  static override examples = ['<%= config.bin %> access revoke acr_0123… --note "work finished"'];
  static override args = { id: Args.string({ description: 'Access request id.', required: true }) };
  static override flags = noteFlag;

  async run(): Promise<AccessStep> {
    const { args, flags } = await this.parse(AccessRevoke);
    const result = await this.withDaemon(flags, (client) =>
      client.post<AccessStep>(`/v1/access-requests/${segment(args.id)}/revoke`, {
        ...(flags.note !== undefined ? { note: flags.note } : {}),
      }),
    );
    this.show(() => renderAccessRequest(result.access_request));
    this.note(`Revoked; journaled as receipt ${result.receipt.receipt_id}.`);
    return result;
  }
}
