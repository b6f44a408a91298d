import { Args } from '@oclif/core';
import { DaemonCommand } from '../../src/cli/daemon-command.js';
import { segment } from '../../src/cli/daemon-client.js';
import { renderApproval } from '../../src/cli/approval-render.js';
import type { ApprovalWire } from '../../src/api/approval-view.js';

export default class ApprovalsShow extends DaemonCommand {
  static override summary =
    'Show one approval: what it binds (params and the provider request included), its status, and who decided it.';
  static override examples = ['<%= config.bin %> approvals show apr_0123…'];
  static override args = { id: Args.string({ description: 'Approval id.', required: true }) };

  async run(): Promise<ApprovalWire> {
    const { args, flags } = await this.parse(ApprovalsShow);
    const approval = await this.withDaemon(flags, (client) =>
      client.get<ApprovalWire>(`/v1/approvals/${segment(args.id)}`),
    );
    this.show(() => renderApproval(approval));
    return approval;
  }
}
