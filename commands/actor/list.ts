import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { actorView, type ActorView } from '../../src/provisioning/actor-view.js';
import { requireTenant } from '../../src/provisioning/tenant.js';

export default class ActorList extends DataDirCommand {
  static override summary = "List a tenant's actors.";
  static override examples = ['<%= config.bin %> actor list --tenant acme'];
  static override flags = { tenant: Flags.string({ summary: 'Tenant id.', required: true }) };

  async run(): Promise<{ actors: ActorView[] }> {
    const { flags } = await this.parse(ActorList);
    const actors = await this.withStore(flags, async (store) => {
      await requireTenant(store, flags.tenant);
      return (await store.actors.list(flags.tenant)).map(actorView);
    });
    this.log(
      renderTable(
        ['actor', 'kind', 'roles', 'manager', 'cert subject'],
        actors.map((a) => [a.actor_id, a.kind, a.roles.join(', '), a.manager, a.cert_subject]),
      ),
    );
    return { actors };
  }
}
