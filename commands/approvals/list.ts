import { Flags } from '@oclif/core';
import type { z } from 'zod';
import { DaemonCommand, pageFlags } from '../../src/cli/daemon-command.js';
import { pages } from '../../src/cli/daemon-client.js';
import { morePages } from '../../src/cli/render.js';
import { renderTable } from '../../src/cli/table.js';
import type { ApprovalView } from '../../src/daemon/schemas/approval.js';

type Approval = z.output<typeof ApprovalView>;

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

  async run(): Promise<{ items: Approval[]; next_cursor: string | null }> {
    const { flags } = await this.parse(ApprovalsList);
    const page = await this.withDaemon(flags, (client) =>
      pages(
        (cursor) =>
          client.get<{ items: Approval[]; next_cursor: string | null }>('/v1/approvals', {
            status: flags.status,
            limit: flags.limit,
            cursor,
          }),
        { cursor: flags.cursor, all: flags.all },
      ),
    );
    this.log(
      renderTable(
        ['approval', 'status', 'capability', 'action', 'requester', 'amount (USD)', 'task', 'expires'],
        page.items.map((a) => [
          a.approval_id,
          a.status,
          a.capability,
          a.action,
          a.requester_id,
          a.amount_usd,
          a.task_id,
          a.expires_at,
        ]),
      ),
    );
    const more = morePages(page.next_cursor);
    if (more) this.note(more);
    return page;
  }
}
