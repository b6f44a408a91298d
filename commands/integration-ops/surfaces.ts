import { DaemonCommand } from '../../src/cli/daemon-command.js';
import type { SurfacesResult } from '../../src/cli/integration-ops.js';
import { onePage, type Column } from '../../src/cli/list-output.js';

type Surface = SurfacesResult['surfaces'][number];

const COLUMNS: Column<Surface>[] = [
  { header: 'surface', cell: (s) => s.surface_id },
  { header: 'adapter', cell: (s) => s.adapter },
  { header: 'state', cell: (s) => s.status },
  { header: 'operations', cell: (s) => s.operations.join(', ') },
  { header: 'rotated', cell: (s) => s.rotated_at },
  { header: 'revoked', cell: (s) => s.revoked_at },
];

export default class IntegrationOpsSurfaces extends DaemonCommand {
  static override summary =
    'List the surfaces the daemon is configured with, and their state (registered humans; contacts no adapter).';
  static override examples = ['<%= config.bin %> integration-ops surfaces'];

  async run(): Promise<void> {
    const { flags } = await this.parse(IntegrationOpsSurfaces);
    await this.withDaemon(flags, async (client) => {
      const r = await client.get<SurfacesResult>('/v1/integration-ops/surfaces');
      await this.list(onePage(r.surfaces), COLUMNS);
      // What the listing does not prove; a human reads it, --json keeps the one list shape.
      this.note(r.note);
    });
  }
}
