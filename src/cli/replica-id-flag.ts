import { Flags } from '@oclif/core';
import { invalidField } from '../core/errors.js';
import { isReplicaId, REPLICA_ID_EXPECTED } from '../core/replica-id.js';

/**
 * `svc daemon start --replica-id` (its variable is `SVC_REPLICA_ID`, which a flag beats):
 * checked as it is read, with the rule replica ids have always had (core/replica-id.ts).
 */
export const replicaIdFlag = Flags.custom<string>({
  summary:
    "This daemon's name among the replicas on one PostgreSQL database: recorded on every brokered call it starts, so that its next start recovers only its own; reuse it when this replica restarts (default: the host name). Not used on SQLite.",
  parse: async (input, _context, flag) => {
    if (!isReplicaId(input)) throw invalidField(flag.name, REPLICA_ID_EXPECTED);
    return input;
  },
});
