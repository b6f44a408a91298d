import { SvcError } from './errors.js';

/**
 * A replica id names one daemon among the replicas on a PostgreSQL database (see
 * store/postgres/replica.ts). `dmn_` is refused: it marks the calls a SQLite daemon left
 * open, which any replica judges, so no replica may pass for one.
 */
const REPLICA_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const REPLICA_ID_EXPECTED =
  "1 to 128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit, and not starting with dmn_ (a SQLite daemon's mark)";

export function isReplicaId(id: string): boolean {
  return REPLICA_ID.test(id) && !id.startsWith('dmn_');
}

/** Replicas are a PostgreSQL deployment's: asked of a SQLite store, the answer says so. */
export function replicasNeedPostgres(): SvcError {
  return new SvcError(
    'usage',
    "replicas need PostgreSQL: this store is the data dir's SQLite database, which daemons on one host share and recover by process",
    {
      field: 'store',
      remedy:
        'pass --store postgresql://… (or set SVC_STORE) to list or release the replicas of a PostgreSQL database',
    },
  );
}
