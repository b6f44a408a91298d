import { Flags } from '@oclif/core';
import { DaemonCommand, pageFlags, pageLimit } from '../../src/cli/daemon-command.js';
import { pageStream, type Page } from '../../src/cli/list-output.js';
import { APPROVAL_COLUMNS } from '../../src/cli/approval-render.js';
import type { ApprovalWire } from '../../src/api/approval-view.js';

export default class ApprovalsList extends DaemonCommand {
  static override summary =
    'List the approvals you may see (approvers, operators, named approvers, requesters).';
  static override examples = [
    '<%= config.bin %> approvals list --status pending',
    '<%= config.bin %> approvals list --all --json',
  ];
  static override flags = {
    status: Flags.string({
      summary: 'Only approvals in this status.',
      options: ['pending', 'approved', 'denied', 'consumed', 'expired'],
    }),
    ...pageFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ApprovalsList);
    await this.withDaemon(flags, (client) =>
      this.list(
        pageStream(
          (cursor) =>
            client.get<Page<ApprovalWire>>('/v1/approvals', {
              status: flags.status,
              limit: pageLimit(flags),
              cursor,
            }),
          flags,
        ),
        APPROVAL_COLUMNS,
      ),
    );
  }
}
