import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { setTaskBudget, type TaskView } from '../../src/provisioning/task.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class TaskBudget extends DataDirCommand {
  static override summary = "Set a task's budget; never below what allowed decisions have already reserved.";
  static override examples = ['<%= config.bin %> task budget --tenant acme --id q3-cleanup --set 400'];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    id: Flags.string({ summary: 'Task id.', required: true }),
    set: Flags.string({ summary: 'The new budget in USD.', required: true }),
  };

  async run(): Promise<TaskView & { previous_budget_usd: number }> {
    const { flags } = await this.parse(TaskBudget);
    const t = await this.withStore(flags, (store) =>
      setTaskBudget(store, { tenantId: flags.tenant, id: flags.id, budgetUsd: flags.set }),
    );
    this.log(
      `Task ${t.task_id}: budget ${t.previous_budget_usd} -> ${t.budget_usd} USD (${t.reserved_usd} USD reserved)`,
    );
    return t;
  }
}
