import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { showTask, type TaskView } from '../../src/provisioning/task.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class TaskShow extends DataDirCommand {
  static override summary = 'Show a task: status, sponsor, budget and what is reserved, tree and agents.';
  static override examples = ['<%= config.bin %> task show --tenant acme --id q3-cleanup'];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    id: Flags.string({ summary: 'Task id.', required: true }),
  };

  async run(): Promise<TaskView> {
    const { flags } = await this.parse(TaskShow);
    const t = await this.withStore(flags, (store) => showTask(store, flags.tenant, flags.id));
    this.show(() =>
      renderTable(
        ['field', 'value'],
        [
          ['task', t.task_id],
          ['title', t.title],
          ['status', t.status],
          ['sponsor', t.sponsor],
          ['budget USD', t.budget_usd],
          ['reserved USD', t.reserved_usd],
          ['parent', t.parent_id],
          ['root', t.root_id],
          ['agents', t.actors.join(', ')],
          ['created', t.created_at],
          ['closed', t.closed_at],
        ],
      ),
    );
    return t;
  }
}
