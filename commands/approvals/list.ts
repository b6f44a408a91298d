import { Flags } from '@oclif/core';
import type { z } from 'zod';
import { DaemonCommand, pageFlags, pageLimit } from '../../src/cli/daemon-command.js';
import { pageStream, type Column, type Page } from '../../src/cli/list-output.js';
import type { ApprovalView } from '../../src/daemon/schemas/approval.js';

type Approval = z.output<typeof ApprovalView>;

const COLUMNS: Column<Approval>[] = [
  { header: 'approval', cell: (a) => a.approval_id },
  { header: 'status', cell: (a) => a.status },
  { header: 'capability', cell: (a) => a.capability },
  { header: 'action', cell: (a) => a.action },
  { header: 'requester', cell: (a) => a.requester_id },
  { header: 'amount (USD)', cell: (a) => a.amount_usd },
  { header: 'task', cell: (a) => a.task_id },
  { header: 'expires', cell: (a) => a.expires_at },
];

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
            client.get<Page<Approval>>('/v1/approvals', {
              status: flags.status,
              limit: pageLimit(flags),
              cursor,
            }),
          flags,
        ),
        COLUMNS,
      ),
    );
  }
}
