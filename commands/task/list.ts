import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { pageStream, type Column } from '../../src/cli/list-output.js';
import { listTasks, MAX_PAGE, type TaskView } from '../../src/provisioning/task.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

const COLUMNS: Column<TaskView>[] = [
  { header: 'task', cell: (t) => t.task_id },
  { header: 'status', cell: (t) => t.status },
  { header: 'sponsor', cell: (t) => t.sponsor },
  { header: 'budget USD', cell: (t) => t.budget_usd },
  { header: 'reserved USD', cell: (t) => t.reserved_usd },
  { header: 'parent', cell: (t) => t.parent_id },
  { header: 'title', cell: (t) => t.title },
];

export default class TaskList extends DataDirCommand {
  static override summary = "List a tenant's tasks, ordered by id, a page at a time.";
  static override examples = [
    '<%= config.bin %> task list --tenant acme',
    '<%= config.bin %> task list --tenant acme --limit 20 --cursor q3-cleanup',
    '<%= config.bin %> task list --tenant acme --all --json',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    limit: Flags.integer({ summary: `Tasks per page, 1 to ${MAX_PAGE}.`, default: 50 }),
    cursor: Flags.string({
      summary: 'Continue from the next_cursor of a previous page.',
      aliases: ['after'],
    }),
    all: Flags.boolean({ summary: 'Follow next_cursor to the last page.', exclusive: ['cursor'] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(TaskList);
    await this.withStore(flags, (store) =>
      this.list(
        pageStream(
          (cursor) =>
            listTasks(store, {
              tenantId: flags.tenant,
              limit: flags.limit,
              ...(cursor !== undefined ? { cursor } : {}),
            }),
          flags,
        ),
        COLUMNS,
      ),
    );
  }
}
