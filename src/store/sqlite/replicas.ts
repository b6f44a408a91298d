import { replicasNeedPostgres } from '../../core/replica-id.js';
import type { ReplicaRelease, ReplicaRepo, ReplicaSeen } from '../replica-ports.js';

/**
 * A SQLite data dir is served by daemons on one host, told apart by process
 * (execution-owner.ts): there are no replicas to list or release.
 */
export class SqliteReplicas implements ReplicaRepo {
  beat(): Promise<void> {
    return Promise.reject(replicasNeedPostgres());
  }

  list(): Promise<ReplicaSeen[]> {
    return Promise.reject(replicasNeedPostgres());
  }

  release(): Promise<ReplicaRelease> {
    return Promise.reject(replicasNeedPostgres());
  }
}
