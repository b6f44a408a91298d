import { DataDirCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';

export default class TenantList extends DataDirCommand {
  static override summary = 'List tenants.';
  static override examples = ['<%= config.bin %> tenant list --json'];

  async run(): Promise<{ tenants: { tenant_id: string; created_at: string; key_id: string | null }[] }> {
    const { flags } = await this.parse(TenantList);
    const tenants = await this.withStore(flags, async (store) =>
      Promise.all(
        (await store.tenants.list()).map(async (t) => ({
          tenant_id: t.id,
          created_at: t.createdAt,
          key_id: (await store.keys.active(t.id))?.keyId ?? null,
        })),
      ),
    );
    this.log(
      renderTable(
        ['tenant', 'created', 'signing key'],
        tenants.map((t) => [t.tenant_id, t.created_at, t.key_id]),
      ),
    );
    return { tenants };
  }
}
