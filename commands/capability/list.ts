import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { listCapabilities, type CapabilityView } from '../../src/provisioning/capability.js';

export default class CapabilityList extends DataDirCommand {
  static override summary = "List a tenant's registered capabilities.";
  static override examples = ['<%= config.bin %> capability list --tenant acme'];
  static override flags = { tenant: Flags.string({ summary: 'Tenant id.', required: true }) };

  async run(): Promise<{ capabilities: CapabilityView[] }> {
    const { flags } = await this.parse(CapabilityList);
    const capabilities = await this.withStore(flags, (store) => listCapabilities(store, flags.tenant));
    this.log(
      renderTable(
        ['name', 'tier', 'custody', 'actions', 'cost USD', 'irreversible', 'requestable', 'approvers'],
        capabilities.map((c) => [
          c.name,
          c.tier,
          c.custody === 'brokered' ? `brokered (${c.surface}/${c.operation})` : c.custody,
          c.actions.join(', '),
          c.cost_usd,
          c.irreversible ? 'yes' : 'no',
          c.requestable ? 'yes' : 'no',
          c.approvers.join(', '),
        ]),
      ),
    );
    return { capabilities };
  }
}
