import { Flags } from '@oclif/core';
import { CUSTODIES } from '../../src/core/capability.js';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { registerCapability, type RegisteredCapability } from '../../src/provisioning/capability.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import { tierFlag } from '../../src/cli/tier-flag.js';

export default class CapabilityRegister extends DataDirCommand {
  static override summary =
    'Register a capability, or replace the registration of one with the same name (the flags are the whole registration).';
  static override examples = [
    '<%= config.bin %> capability register --tenant acme --name crm.contacts --tier 1 --actions read,write --cost-usd 0.01',
    '<%= config.bin %> capability register --tenant acme --name payments.refund --tier 4 --irreversible --actions write --cost-usd 25 --approver bob',
    '<%= config.bin %> capability register --tenant acme --name mail.send --tier 2 --actions write --custody brokered --surface mailer --operation send',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    name: Flags.string({ summary: 'Capability name, such as crm.contacts.', required: true }),
    tier: tierFlag({ required: true }),
    actions: Flags.string({
      summary: 'Verbs a request may name: a comma list (read,write) or the flag repeated.',
      multiple: true,
      required: true,
    }),
    irreversible: Flags.boolean({
      summary: 'Its effects cannot be undone: every use needs a human approval.',
    }),
    custody: Flags.string({
      summary:
        'grant: the caller acts with a grant; brokered: the daemon executes it; pass_through: observed only.',
      options: [...CUSTODIES],
      default: 'grant',
    }),
    'cost-usd': Flags.string({
      summary: 'Default amount in USD reserved when a request names none (default 0).',
    }),
    requestable: Flags.boolean({ summary: 'List it in the catalogue, so agents can request access to it.' }),
    approver: Flags.string({
      summary: 'A registered human who may approve its use (repeatable).',
      multiple: true,
    }),
    owner: Flags.string({
      summary: 'A registered human who receives access-request cards for it (repeatable).',
      multiple: true,
    }),
    surface: Flags.string({
      summary: 'Brokered custody: the integration surface that executes it.',
      dependsOn: ['operation'],
    }),
    operation: Flags.string({
      summary: 'Brokered custody: the operation on that surface.',
      dependsOn: ['surface'],
    }),
  };

  async run(): Promise<RegisteredCapability> {
    const { flags } = await this.parse(CapabilityRegister);
    const cap = await this.withStore(flags, (store) =>
      registerCapability(
        store,
        {
          tenantId: flags.tenant,
          name: flags.name,
          tier: flags.tier,
          irreversible: flags.irreversible,
          custody: flags.custody,
          actions: flags.actions,
          requestable: flags.requestable,
          approvers: flags.approver ?? [],
          owners: flags.owner ?? [],
          ...(flags['cost-usd'] !== undefined ? { costUsd: flags['cost-usd'] } : {}),
          ...(flags.surface !== undefined ? { surface: flags.surface } : {}),
          ...(flags.operation !== undefined ? { operation: flags.operation } : {}),
        },
        new Date(),
      ),
    );
    const what = `capability ${cap.name} in tenant ${cap.tenant_id}`;
    if (cap.result === 'created') this.log(`Registered ${what} (actions: ${cap.actions.join(', ')})`);
    else if (cap.result === 'updated') this.log(`Updated ${what}: ${cap.changed.join(', ')} changed`);
    else this.log(`Unchanged: ${what} is already registered exactly so`);
    return cap;
  }
}
