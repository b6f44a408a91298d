import { encodeHex } from '../evidence/encoding.js';
import { sha256 } from '../evidence/node-crypto.js';
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

/** Who stored a version and why: what the history keeps beside the text. */
export interface PolicyAuthorship {
  /**
   * The account that wrote it: the OS user a CLI command ran as (the CLI opens the data dir
   * directly, so that account is who the machine can name), or `migration` for a version
   * recorded when the history table was created.
   */
  setBy: string;
  /** the operator's note (`svc policy set --message`), or the rollback it was */
  message: string | null;
}

/** One stored version of a tenant's policy: kept for good, never changed (append-only). */
export interface PolicyVersion extends PolicyAuthorship {
  tenantId: string;
  version: number;
  text: string;
  /** SHA-256 of the text's UTF-8 bytes, lower-case hex */
  sha256: string;
  setAt: string;
}

/** A version as a history lists it: everything but the text. */
export type PolicyVersionSummary = Omit<PolicyVersion, 'text'>;

/** Who set a policy when the caller does not say: recorded as such, never guessed. */
export const UNKNOWN_AUTHOR: PolicyAuthorship = { setBy: 'unknown', message: null };

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
  /** keep the version in the history where that number is not taken yet: the rows inserted */
  appendVersion(version: PolicyVersion): number;
  /** move the registry version the daemon caches its compiled policy under */
  bumpRegistry(tenantId: string): void;
}

const ask = asker<PolicyOps>();

/** SHA-256 of the text's UTF-8 bytes as lower-case hex: the hash a history shows. */
export function policyHash(text: string): string {
  return encodeHex(sha256(new TextEncoder().encode(text)));
}

/**
 * Store a new policy text as the next version, and keep it in the history in the same
 * transaction; the same text again changes nothing (no version, no history row).
 */
export function* setPolicy(
  tenantId: string,
  text: string,
  at: string,
  by: PolicyAuthorship = UNKNOWN_AUTHOR,
): UseCase<PolicyOps, PolicyRecord> {
  const found = yield* ask('policy', tenantId);
  if (found !== undefined && found.text === text) return found;
  const record: PolicyRecord = { tenantId, version: (found?.version ?? 0) + 1, text, updatedAt: at };
  const what = `the policy of tenant ${tenantId}`;
  checkGuarded(
    what,
    found === undefined
      ? yield* ask('insertPolicy', record)
      : yield* ask('updatePolicy', record, found.version),
  );
  checkGuarded(
    `version ${record.version} of ${what}`,
    yield* ask('appendVersion', {
      tenantId,
      version: record.version,
      text,
      sha256: policyHash(text),
      setBy: by.setBy,
      message: by.message,
      setAt: at,
    }),
  );
  yield* ask('bumpRegistry', tenantId);
  return record;
}
