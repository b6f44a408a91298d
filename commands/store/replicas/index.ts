import { DataDirCommand } from '../../../src/cli/base-command.js';
import { onePage } from '../../../src/cli/list-output.js';
import { REPLICA_COLUMNS, replicaView } from '../../../src/cli/replica-view.js';

export default class StoreReplicas extends DataDirCommand {
  static override summary =
    'List the daemon replicas a PostgreSQL database has seen: heartbeat, claim, calls in flight.';
  static override description =
    'Every replica recorded in the database (`--replica-id` or SVC_REPLICA_ID of each daemon), with its host, pid, version and start, the age of its last heartbeat (by the database clock; a live daemon beats every 5 seconds), whether a live daemon holds its replica claim now, and how many brokered calls it started are still in flight. A replica whose claim is free and whose calls are still in flight is gone: restart it under its id, or release it with `svc store replicas release`. PostgreSQL only.';
  static override examples = [
    'SVC_STORE=postgresql://svc@db.internal/svc <%= config.bin %> store replicas',
    '<%= config.bin %> store replicas --store postgresql://svc@db.internal/svc --json',
  ];

  async run(): Promise<void> {
    const { flags } = await this.parse(StoreReplicas);
    await this.withDatabase(flags, (store) =>
      this.list(onePage(store.replicas.list().then((rs) => rs.map(replicaView))), REPLICA_COLUMNS),
    );
  }
}
