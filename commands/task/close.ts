import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { closeTask, type TaskView } from '../../src/provisioning/task.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class TaskClose extends DataDirCommand {
  static override summary = 'Close a task: final; it takes no more decisions, budget changes or children.';
  static override examples = ['<%= config.bin %> task close --tenant acme --id q3-cleanup'];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    id: Flags.string({ summary: 'Task id.', required: true }),
  };

  async run(): Promise<TaskView> {
    const { flags } = await this.parse(TaskClose);
    const t = await this.withStore(flags, (store) =>
      closeTask(store, { tenantId: flags.tenant, id: flags.id, now: new Date() }),
    );
    this.log(`Closed task ${t.task_id} (${t.reserved_usd} of ${t.budget_usd} USD reserved)`);
    return t;
  }
}
