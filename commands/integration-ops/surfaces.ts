import { DaemonCommand } from '../../src/cli/daemon-command.js';
import type { SurfacesResult } from '../../src/cli/integration-ops.js';
import { renderTable } from '../../src/cli/table.js';

export default class IntegrationOpsSurfaces extends DaemonCommand {
  static override summary =
    'List the surfaces the daemon is configured with, and their state (registered humans; contacts no adapter).';
  static override examples = ['<%= config.bin %> integration-ops surfaces'];

  async run(): Promise<SurfacesResult> {
    const { flags } = await this.parse(IntegrationOpsSurfaces);
    const r = await this.withDaemon(flags, (client) =>
      client.get<SurfacesResult>('/v1/integration-ops/surfaces'),
    );
    this.log(
      renderTable(
        ['surface', 'adapter', 'state', 'operations', 'rotated', 'revoked'],
        r.surfaces.map((s) => [
          s.surface_id,
          s.adapter,
          s.status,
          s.operations.join(', '),
          s.rotated_at,
          s.revoked_at,
        ]),
      ),
    );
    this.note(r.note);
    return r;
  }
}
