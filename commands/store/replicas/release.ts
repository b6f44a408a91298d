import { hostname } from 'node:os';
import { Args } from '@oclif/core';
import { DataDirCommand } from '../../../src/cli/base-command.js';
import { renderRelease, replicaReleaseView, type ReplicaReleaseView } from '../../../src/cli/replica-view.js';

export default class StoreReplicasRelease extends DataDirCommand {
  static override summary =
    'Release a replica gone for good: seal its in-flight brokered calls as outcome unknown.';
  static override description =
    "Refused while a daemon holds that replica's claim (it is alive). Otherwise each brokered call it left in flight is sealed exactly as its own start-up would seal it: outcome unknown, never sent again, with an execution record in its tenant's journal that names the release (replica id, and the host and pid that released it). Its row leaves `svc store replicas`. Running it again releases nothing. PostgreSQL only.";
  static override examples = [
    '<%= config.bin %> store replicas release web-3 --store postgresql://svc@db.internal/svc',
  ];
  static override args = {
    id: Args.string({ description: 'The replica id (as `svc store replicas` lists it).', required: true }),
  };

  async run(): Promise<ReplicaReleaseView> {
    const { args, flags } = await this.parse(StoreReplicasRelease);
    const result = await this.withDatabase(flags, (store) =>
      store.replicas.release(args.id, { host: hostname(), pid: process.pid }),
    );
    const view = replicaReleaseView(result);
    this.show(() => renderRelease(view));
    return view;
  }
}
