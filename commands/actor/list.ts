import { DataDirCommand } from '../../src/cli/base-command.js';
import { onePage, type Column } from '../../src/cli/list-output.js';
import { actorView, type ActorView } from '../../src/provisioning/actor-view.js';
import { requireTenant } from '../../src/provisioning/references.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

const COLUMNS: Column<ActorView>[] = [
  { header: 'actor', cell: (a) => a.actor_id },
  { header: 'kind', cell: (a) => a.kind },
  { header: 'roles', cell: (a) => a.roles.join(', ') },
  { header: 'manager', cell: (a) => a.manager },
  { header: 'cert subject', cell: (a) => a.cert_subject },
];

export default class ActorList extends DataDirCommand {
  static override summary = "List a tenant's actors.";
  static override examples = ['<%= config.bin %> actor list --tenant acme'];
  static override flags = { tenant: tenantFlag({ required: true }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(ActorList);
    await this.withStore(flags, async (store) => {
      await requireTenant(store, flags.tenant);
      const actors = (await store.actors.list(flags.tenant)).map(actorView);
      await this.list(onePage(actors), COLUMNS);
    });
  }
}
