import { Flags } from '@oclif/core';
import { DaemonCommand } from '../../src/cli/daemon-command.js';
import { describeChange, type SurfaceChangeResult } from '../../src/cli/integration-ops.js';

export default class IntegrationOpsRevoke extends DaemonCommand {
  static override summary =
    'Withdraw a surface so new operations on it are refused at once (administrators); the vendor credential is not revoked.';
  static override examples = ['<%= config.bin %> integration-ops revoke --surface crm'];
  static override flags = { surface: Flags.string({ summary: 'Surface id.', required: true }) };

  async run(): Promise<SurfaceChangeResult> {
    const { flags } = await this.parse(IntegrationOpsRevoke);
    const r = await this.withDaemon(flags, (client) =>
      client.post<SurfaceChangeResult>('/v1/integration-ops/revoke', { surface_id: flags.surface }),
    );
    this.log(describeChange('revoked', r));
    return r;
  }
}
