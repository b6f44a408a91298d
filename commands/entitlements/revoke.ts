import { Args } from '@oclif/core';
import { ENTITLEMENT_COLUMNS, noteFlag, type EntitlementRevoke } from '../../src/cli/access.js';
import { renderRows } from '../../src/cli/render.js';
import { DaemonCommand } from '../../src/cli/daemon-command.js';
import { segment } from '../../src/cli/daemon-client.js';

export default class EntitlementsRevoke extends DaemonCommand {
  static override summary =
    'Revoke an entitlement; decisions that relied on it are refused from the next one on.';
  static override examples = ['<%= config.bin %> entitlements revoke ent_0123… --note "left the project"'];
  static override args = { id: Args.string({ description: 'Entitlement id.', required: true }) };
  static override flags = noteFlag;

  async run(): Promise<EntitlementRevoke> {
    const { args, flags } = await this.parse(EntitlementsRevoke);
    const result = await this.withDaemon(flags, (client) =>
      client.post<EntitlementRevoke>(`/v1/entitlements/${segment(args.id)}/revoke`, {
        ...(flags.note !== undefined ? { note: flags.note } : {}),
      }),
    );
    this.show(() => renderRows(ENTITLEMENT_COLUMNS, [result.entitlement]));
    this.note(`Revoked; journaled as receipt ${result.receipt.receipt_id}.`);
    return result;
  }
}
