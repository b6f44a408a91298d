import { Args, Flags } from '@oclif/core';
import { DaemonCommand } from '../../src/cli/daemon-command.js';
import { segment } from '../../src/cli/daemon-client.js';
import { readPlanFile } from '../../src/cli/plan-file.js';
import { renderProfile, type Profile } from '../../src/cli/profile-render.js';

export default class ConstraintsInstall extends DaemonCommand {
  static override summary =
    "Install a root task's execution plan and activate the task: sponsor only, draft and unused roots only, once.";
  static override description =
    'The plan is a JSON object with any of: capabilities, actors, max_amount_usd_per_action, max_total_usd, max_actions, not_before, not_after. It can never be changed afterwards.';
  static override examples = ['<%= config.bin %> constraints install launch --plan plan.json'];
  static override args = { task: Args.string({ description: 'Root task id.', required: true }) };
  static override flags = {
    plan: Flags.string({ summary: 'JSON file with the plan.', required: true }),
  };

  async run(): Promise<Profile> {
    const { args, flags } = await this.parse(ConstraintsInstall);
    const plan = readPlanFile(flags.plan);
    const profile = await this.withDaemon(flags, (client) =>
      client.post<Profile>(`/v1/task/${segment(args.task)}/execution-constraints`, plan),
    );
    this.note(`Task ${args.task} is active; its plan can never be changed.`);
    this.show(() => renderProfile(profile));
    return profile;
  }
}
