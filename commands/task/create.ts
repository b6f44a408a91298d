import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { createTask, type TaskView } from '../../src/provisioning/task.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class TaskCreate extends DataDirCommand {
  static override summary =
    'Create a task: a registered human sponsor, a budget, and optionally a parent and agents.';
  static override description =
    'The task is active unless --draft (a draft root is activated by installing its execution constraints). Prints the task id on stdout.';
  static override examples = [
    '<%= config.bin %> task create --tenant acme --sponsor bob --budget-usd 250 --title "Q3 CRM cleanup" --actor crm-agent',
    'TASK=$(<%= config.bin %> task create --tenant acme --sponsor bob --budget-usd 50 --json | jq -r .task_id)',
    '<%= config.bin %> task create --tenant acme --id q3-eu --parent q3-cleanup --sponsor bob --budget-usd 40',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    sponsor: Flags.string({ summary: 'The registered human accountable for the task.', required: true }),
    'budget-usd': Flags.string({ summary: 'Budget in USD (at most 6 decimal places).', required: true }),
    id: Flags.string({ summary: 'Task id (a slug); default a generated task_<hex> id.' }),
    title: Flags.string({ summary: 'A short description.' }),
    parent: Flags.string({ summary: 'An open task of the tenant this task is part of.' }),
    actor: Flags.string({ summary: 'A registered agent assigned to the task (repeatable).', multiple: true }),
    draft: Flags.boolean({ summary: 'Create it as a draft instead of active.' }),
  };

  async run(): Promise<TaskView> {
    const { flags } = await this.parse(TaskCreate);
    const task = await this.withStore(flags, (store) =>
      createTask(
        store,
        {
          tenantId: flags.tenant,
          sponsorId: flags.sponsor,
          budgetUsd: flags['budget-usd'],
          draft: flags.draft,
          actors: flags.actor ?? [],
          ...(flags.id !== undefined ? { id: flags.id } : {}),
          ...(flags.title !== undefined ? { title: flags.title } : {}),
          ...(flags.parent !== undefined ? { parentId: flags.parent } : {}),
        },
        new Date(),
      ),
    );
    this.note(
      `Created ${task.status} task ${task.task_id} in tenant ${task.tenant_id}: budget ${task.budget_usd} USD, sponsor ${task.sponsor}`,
    );
    this.log(task.task_id);
    return task;
  }
}
