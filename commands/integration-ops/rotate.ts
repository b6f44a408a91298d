import { Flags } from '@oclif/core';
import { DaemonCommand } from '../../src/cli/daemon-command.js';
import { describeChange, type SurfaceChangeResult } from '../../src/cli/integration-ops.js';

export default class IntegrationOpsRotate extends DaemonCommand {
  static override summary =
    'Move a surface to a new credential reference and retire the old one (administrators); a revoked surface becomes active again.';
  static override examples = [
    'printf %s "$NEW_TOKEN" | <%= config.bin %> secret set --tenant acme --name crm-token-2',
    '<%= config.bin %> integration-ops rotate --surface crm --credential-ref secret:crm-token-2',
  ];
  static override flags = {
    surface: Flags.string({ summary: 'Surface id.', required: true }),
    'credential-ref': Flags.string({
      summary: 'The new reference: secret:<name>, or one the document lists under credential_refs.',
      required: true,
    }),
  };

  async run(): Promise<SurfaceChangeResult> {
    const { flags } = await this.parse(IntegrationOpsRotate);
    const r = await this.withDaemon(flags, (client) =>
      client.post<SurfaceChangeResult>('/v1/integration-ops/rotate', {
        surface_id: flags.surface,
        credential_ref: flags['credential-ref'],
      }),
    );
    this.log(describeChange('rotated', r));
    return r;
  }
}
