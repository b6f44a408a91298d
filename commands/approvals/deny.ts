import {
  decideApproval,
  decisionArgs,
  decisionFlags,
  describeDecision,
  type DecisionResult,
} from '../../src/cli/approval-decision.js';
import { DaemonCommand } from '../../src/cli/daemon-command.js';

export default class ApprovalsDeny extends DaemonCommand {
  static override summary = 'Deny a pending approval; the waiting request is then refused on resume.';
  static override examples = ['<%= config.bin %> approvals deny apr_0123… --note "not this quarter"'];
  static override args = decisionArgs;
  static override flags = decisionFlags;

  async run(): Promise<DecisionResult> {
    const { args, flags } = await this.parse(ApprovalsDeny);
    const result = await this.withDaemon(flags, (client) =>
      decideApproval(client, args.id, 'deny', flags.note),
    );
    this.log(describeDecision(result));
    this.note(`Journaled as receipt ${result.receipt_id} (sequence ${result.sequence}).`);
    return result;
  }
}
