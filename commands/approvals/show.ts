import { Args } from '@oclif/core';
import type { z } from 'zod';
import { DaemonCommand } from '../../src/cli/daemon-command.js';
import { segment } from '../../src/cli/daemon-client.js';
import { renderRecord } from '../../src/cli/render.js';
import type { ApprovalView } from '../../src/daemon/schemas/approval.js';

export default class ApprovalsShow extends DaemonCommand {
  static override summary = 'Show one approval: what it binds, its status, and who decided it.';
  static override examples = ['<%= config.bin %> approvals show apr_0123…'];
  static override args = { id: Args.string({ description: 'Approval id.', required: true }) };

  async run(): Promise<z.output<typeof ApprovalView>> {
    const { args, flags } = await this.parse(ApprovalsShow);
    const approval = await this.withDaemon(flags, (client) =>
      client.get<z.output<typeof ApprovalView>>(`/v1/approvals/${segment(args.id)}`),
    );
    this.show(() => renderRecord(approval));
    return approval;
  }
}
