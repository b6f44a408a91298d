import { SvcCommand } from '../../src/cli/base-command.js';
import { EXAMPLE_POLICY } from '../../src/policy/example-policy.js';

export default class PolicyExample extends SvcCommand {
  static override summary = 'Print an example policy set to start from.';
  static override examples = [
    '<%= config.bin %> policy example > policy.cedar',
    '<%= config.bin %> policy set --tenant acme --file policy.cedar',
  ];

  async run(): Promise<{ text: string }> {
    await this.parse(PolicyExample);
    if (!this.jsonEnabled()) process.stdout.write(EXAMPLE_POLICY);
    return { text: EXAMPLE_POLICY };
  }
}
