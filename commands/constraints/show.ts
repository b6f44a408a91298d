import { Args } from '@oclif/core';
import { DaemonCommand } from '../../src/cli/daemon-command.js';
import { segment } from '../../src/cli/daemon-client.js';
import { renderProfile, type Profile } from '../../src/cli/profile-render.js';

export default class ConstraintsShow extends DaemonCommand {
  static override summary =
    "Show the execution plan governing a task and its root's admissions (all of them for operators and the sponsor).";
  static override examples = ['<%= config.bin %> constraints show launch --json'];
  static override args = { task: Args.string({ description: 'Task id.', required: true }) };

  async run(): Promise<Profile> {
    const { args, flags } = await this.parse(ConstraintsShow);
    const profile = await this.withDaemon(flags, (client) =>
      client.get<Profile>(`/v1/task/${segment(args.task)}/execution-constraints`),
    );
    this.show(() => renderProfile(profile));
    return profile;
  }
}
