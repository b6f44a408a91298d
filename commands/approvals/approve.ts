import {
  decideApproval,
  decisionArgs,
  decisionFlags,
  describeDecision,
  type DecisionResult,
} from '../../src/cli/approval-decision.js';
import { DaemonCommand } from '../../src/cli/daemon-command.js';

export default class ApprovalsApprove extends DaemonCommand {
  static override summary =
    'Approve a pending approval (approvers and named approvers; never your own request).';
  static override examples = ['<%= config.bin %> approvals approve apr_0123… --note "refund is due"'];
  static override args = decisionArgs;
  static override flags = decisionFlags;

  async run(): Promise<DecisionResult> {
    const { args, flags } = await this.parse(ApprovalsApprove);
    const result = await this.withDaemon(flags, (client) =>
      decideApproval(client, args.id, 'approve', flags.note),
    );
    this.log(describeDecision(result));
    this.note(`Journaled as receipt ${result.receipt_id} (sequence ${result.sequence}).`);
    return result;
  }
}
