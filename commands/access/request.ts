import { Args, Flags } from '@oclif/core';
import { durationSeconds, renderAccessRequest, type AccessStep } from '../../src/cli/access.js';
import { DaemonCommand } from '../../src/cli/daemon-command.js';

export default class AccessRequest extends DaemonCommand {
  static override summary =
    'Request access to a capability from your catalogue; your manager and its owners get a card to decide.';
  static override examples = [
    '<%= config.bin %> access request crm.write --reason "Q3 cleanup needs writes" --duration 8h',
  ];
  static override args = {
    capability: Args.string({ description: 'A capability from `GET /v1/catalogue`.', required: true }),
  };
  static override flags = {
    reason: Flags.string({ summary: 'Why you need it; shown on the manager cards.', required: true }),
    duration: Flags.string({
      summary: 'How long the entitlement should last once approved: 45m, 8h, 7d (1 minute to 90 days).',
      required: true,
    }),
  };

  async run(): Promise<AccessStep> {
    const { args, flags } = await this.parse(AccessRequest);
    const body = {
      capability: args.capability,
      reason: flags.reason,
      duration_seconds: durationSeconds(flags.duration),
    };
    const result = await this.withDaemon(flags, (client) =>
      client.post<AccessStep>('/v1/access-requests', body),
    );
    this.show(() => renderAccessRequest(result.access_request));
    this.note(
      `Requested as ${result.access_request.access_request_id}; journaled as receipt ${result.receipt.receipt_id}.`,
    );
    return result;
  }
}
