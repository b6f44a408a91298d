import { Flags } from '@oclif/core';
import { DaemonCommand } from '../../src/cli/daemon-command.js';
import type { CheckResult } from '../../src/cli/integration-ops.js';

export default class IntegrationOpsCheck extends DaemonCommand {
  static override summary =
    'Ask the configured adapter about a surface and a credential reference (operators); not a live vendor verification.';
  static override examples = [
    '<%= config.bin %> integration-ops check --surface crm',
    '<%= config.bin %> integration-ops check --surface crm --credential-ref secret:crm-token-2',
  ];
  static override flags = {
    surface: Flags.string({ summary: 'Surface id.', required: true }),
    'credential-ref': Flags.string({
      summary:
        'Reference to check (default: the one the surface uses now): secret:<name>, or one the document lists.',
    }),
  };

  async run(): Promise<CheckResult> {
    const { flags } = await this.parse(IntegrationOpsCheck);
    const r = await this.withDaemon(flags, (client) =>
      client.post<CheckResult>('/v1/integration-ops/connection-check', {
        surface_id: flags.surface,
        ...(flags['credential-ref'] !== undefined ? { credential_ref: flags['credential-ref'] } : {}),
      }),
    );
    this.log(`${r.surface_id}: ${r.answer}: ${r.reason}`);
    this.note(`Note: ${r.note}. Journaled as receipt ${r.receipt.receipt_id}.`);
    return r;
  }
}
