import { DataDirCommand } from '../../src/cli/base-command.js';
import { onePage, type Column } from '../../src/cli/list-output.js';
import type { Store } from '../../src/store/ports.js';

interface TenantView {
  tenant_id: string;
  created_at: string;
  key_id: string | null;
}

const COLUMNS: Column<TenantView>[] = [
  { header: 'tenant', cell: (t) => t.tenant_id },
  { header: 'created', cell: (t) => t.created_at },
  { header: 'signing key', cell: (t) => t.key_id },
];

async function tenants(store: Store): Promise<TenantView[]> {
  const out: TenantView[] = [];
  for (const t of await store.tenants.list()) {
    out.push({
      tenant_id: t.id,
      created_at: t.createdAt,
      key_id: (await store.keys.active(t.id))?.keyId ?? null,
    });
  }
  return out;
}

export default class TenantList extends DataDirCommand {
  static override summary = 'List tenants.';
  static override examples = ['<%= config.bin %> tenant list --json'];

  async run(): Promise<void> {
    const { flags } = await this.parse(TenantList);
    await this.withStore(flags, (store) => this.list(onePage(tenants(store)), COLUMNS));
  }
}
