import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { listTasks, MAX_PAGE, type TaskView } from '../../src/provisioning/task.js';

export default class TaskList extends DataDirCommand {
  static override summary = "List a tenant's tasks, ordered by id, a page at a time.";
  static override examples = [
    '<%= config.bin %> task list --tenant acme',
    '<%= config.bin %> task list --tenant acme --limit 20 --after q3-cleanup',
  ];
  static override flags = {
    tenant: Flags.string({ summary: 'Tenant id.', required: true }),
    limit: Flags.integer({ summary: `Tasks per page, 1 to ${MAX_PAGE}.`, default: 50 }),
    after: Flags.string({ summary: 'Start after this task id (the previous page’s next_cursor).' }),
  };

  async run(): Promise<{ tasks: TaskView[]; next_cursor: string | null }> {
    const { flags } = await this.parse(TaskList);
    const page = await this.withStore(flags, (store) =>
      listTasks(store, {
        tenantId: flags.tenant,
        limit: flags.limit,
        ...(flags.after !== undefined ? { after: flags.after } : {}),
      }),
    );
    this.log(
      renderTable(
        ['task', 'status', 'sponsor', 'budget USD', 'reserved USD', 'parent', 'title'],
        page.tasks.map((t) => [
          t.task_id,
          t.status,
          t.sponsor,
          t.budget_usd,
          t.reserved_usd,
          t.parent_id,
          t.title,
        ]),
      ),
    );
    if (page.next_cursor !== null) this.note(`More: --after ${page.next_cursor}`);
    return page;
  }
}
