import { checkGuarded } from './guarded-write.js';
import { asker, type UseCase } from './use-case.js';

/** A tenant's Cedar policy text as stored, with its version. */
export interface PolicyRecord {
  tenantId: string;
  /** increases by one with every change; the daemon recompiles when it moves */
  version: number;
  text: string;
  updatedAt: string;
}

/**
 * The store operations of a policy change, inside one transaction that holds the tenant's
 * writer, so two writers cannot both read version n and write n + 1.
 */
export interface PolicyOps {
  policy(tenantId: string): PolicyRecord | undefined;
  /** store the tenant's first policy where none is stored: the rows inserted */
  insertPolicy(record: PolicyRecord): number;
  /** store the new text where the stored version is still `expected`: the rows changed */
  updatePolicy(record: PolicyRecord, expected: number): number;
  /** move the registry version the daemon caches its compiled policy under */
  bumpRegistry(tenantId: string): void;
}

const ask = asker<PolicyOps>();

/** Store a new policy text as the next version; the same text again changes nothing. */
export function* setPolicy(tenantId: string, text: string, at: string): UseCase<PolicyOps, PolicyRecord> {
  const found = yield* ask('policy', tenantId);
  if (found !== undefined && found.text === text) return found;
  const record: PolicyRecord = { tenantId, version: (found?.version ?? 0) + 1, text, updatedAt: at };
  checkGuarded(
    `the policy of tenant ${tenantId}`,
    found === undefined
      ? yield* ask('insertPolicy', record)
      : yield* ask('updatePolicy', record, found.version),
  );
  yield* ask('bumpRegistry', tenantId);
  return record;
}
