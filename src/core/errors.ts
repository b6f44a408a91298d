/**
 * The one coded error family. Every failure the product reports carries a stable
 * `code` from this union, a human `reason` and, where the smallest satisfying change
 * can be named, a `remedy`. HTTP status and CLI exit codes are derived from the code
 * in exactly one place each (http/error-mapping.ts, cli/exit-codes.ts).
 */
export const ERROR_CODES = [
  // caller mistakes
  'invalid_request',
  'usage',
  'payload_too_large',
  // identity and permission
  'unauthenticated',
  'forbidden',
  // state
  'not_found',
  'conflict',
  'already_exists',
  'not_initialized',
  // the product could not complete safely
  'unavailable',
  'internal',
] as const;

export type ErrorKind = (typeof ERROR_CODES)[number];

/**
 * Every finer code an error may carry, with the family it belongs to. A code not listed
 * here does not compile, so the OpenAPI document's per-status enums (derived from this
 * table) cannot miss one.
 */
export const EXTENSION_CODES = {
  asset_url_refused: 'invalid_request',
  contrast_too_low: 'invalid_request',
  bad_request: 'invalid_request',
  headers_too_large: 'invalid_request',
  method_not_allowed: 'invalid_request',
  request_timeout: 'invalid_request',
  unsupported_media_type: 'invalid_request',
  credential_ref_not_allowed: 'invalid_request',
  credential_unavailable: 'invalid_request',
  svg_refused: 'invalid_request',
  replayed_request: 'unauthenticated',
  bad_signature: 'unauthenticated',
  bad_timestamp: 'unauthenticated',
  missing_signature: 'unauthenticated',
  bad_token: 'unauthenticated',
  missing_token: 'unauthenticated',
  stale_request: 'unauthenticated',
  token_expired: 'unauthenticated',
  claims_mismatch: 'forbidden',
  csrf_failed: 'forbidden',
  grant_expired: 'forbidden',
  grant_not_presented: 'forbidden',
  no_federated_backend: 'forbidden',
  not_a_decider: 'forbidden',
  not_a_revoker: 'forbidden',
  not_an_approver: 'forbidden',
  not_in_catalogue: 'forbidden',
  not_intent_actor: 'forbidden',
  not_sponsor: 'forbidden',
  open_approvals_limit: 'forbidden',
  self_approval: 'forbidden',
  unmapped_user: 'forbidden',
  no_deferral: 'not_found',
  unknown_channel: 'not_found',
  unknown_grant: 'not_found',
  unknown_intent: 'not_found',
  unknown_surface: 'not_found',
  already_decided: 'conflict',
  already_held: 'conflict',
  approval_expired: 'conflict',
  constraints_installed: 'conflict',
  credential_in_use: 'conflict',
  credential_retired: 'conflict',
  effect_recorded: 'conflict',
  grant_presented: 'conflict',
  intent_not_allowed: 'conflict',
  no_decider: 'conflict',
  not_pass_through: 'conflict',
  not_revocable: 'conflict',
  not_root: 'conflict',
  request_pending: 'conflict',
  request_revoked: 'conflict',
  stale_revision: 'conflict',
  surface_revoked: 'conflict',
  task_not_draft: 'conflict',
  task_used: 'conflict',
  unknown_capability: 'conflict',
  // a journal that does not match its signed head, or a backup file that is not the one its manifest names
} as const satisfies Record<string, ErrorKind>;

export type ExtensionCode = keyof typeof EXTENSION_CODES;
/**
 * Codes only a client of the daemon produces (the SDK, the CLI's daemon client): the daemon
 * never answers with them, so they stay out of the OpenAPI document's enums.
 */
export const CLIENT_CODES = ['outcome_unknown', 'invalid_response', 'unreachable'] as const;
export type ClientCode = (typeof CLIENT_CODES)[number];
/** Codes of the witness (`svc witness serve`), a service of its own beside the daemon. */
export const WITNESS_CODES = [
  'unknown_log',
  'wrong_log',
  'empty_tree',
  'rollback',
  'fork',
  'bad_proof',
] as const;
export type WitnessCode = (typeof WITNESS_CODES)[number];
/**
 * Codes of the operator's offline store commands (`svc store backup`, `restore`, `verify`),
 * in the `unavailable` family (exit 6): the daemon never answers with them, so they stay out
 * of the OpenAPI document's enums and the SDKs' wire types.
 */
export const STORE_CHECK_CODES = ['journal_corrupt', 'backup_mismatch'] as const;
export type StoreCheckCode = (typeof STORE_CHECK_CODES)[number];
/**
 * Codes of `svc policy test` and of `svc policy set --test`, which the daemon never answers
 * with: a policy that does not validate (exit 3) and tests that fail or cannot run (exit 4);
 * the CLI's exit codes for them are set in cli/exit-codes.ts.
 */
export const POLICY_TEST_CODES = ['policy_invalid', 'policy_tests_failed'] as const;
export type PolicyTestCode = (typeof POLICY_TEST_CODES)[number];
export type ErrorCode =
  ErrorKind | ExtensionCode | ClientCode | WitnessCode | StoreCheckCode | PolicyTestCode;

export function isErrorCode(code: string): code is ErrorCode {
  return (
    (ERROR_CODES as readonly string[]).includes(code) ||
    Object.hasOwn(EXTENSION_CODES, code) ||
    (CLIENT_CODES as readonly string[]).includes(code) ||
    (WITNESS_CODES as readonly string[]).includes(code) ||
    (STORE_CHECK_CODES as readonly string[]).includes(code) ||
    (POLICY_TEST_CODES as readonly string[]).includes(code)
  );
}

/** Every code of one family: the family's own name and its finer codes. */
export function codesOfKind(kind: ErrorKind): ErrorCode[] {
  const finer = (Object.keys(EXTENSION_CODES) as ExtensionCode[]).filter((c) => EXTENSION_CODES[c] === kind);
  return [kind, ...finer];
}

export interface ErrorBody {
  code: string;
  reason: string;
  remedy?: string;
  field?: string;
}

export class SvcError extends Error {
  readonly code: ErrorCode;
  readonly reason: string;
  readonly remedy: string | undefined;
  /** The request field at fault, as a dotted path, when one can be named. */
  readonly field: string | undefined;
  /** The family this code belongs to, for codes added by later features (e.g. a refusal code). */
  readonly kind: (typeof ERROR_CODES)[number];

  constructor(
    kind: (typeof ERROR_CODES)[number],
    reason: string,
    opts: { remedy?: string; field?: string; code?: ErrorCode; cause?: unknown } = {},
  ) {
    super(reason, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'SvcError';
    this.kind = kind;
    this.code = opts.code ?? kind;
    this.reason = reason;
    this.remedy = opts.remedy;
    this.field = opts.field;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, reason: this.reason };
    if (this.remedy !== undefined) body.remedy = this.remedy;
    if (this.field !== undefined) body.field = this.field;
    return body;
  }
}

export function isSvcError(err: unknown): err is SvcError {
  return err instanceof SvcError;
}

/** A bad field: the message names the field and what was expected. */
export function invalidField(field: string, expected: string): SvcError {
  return new SvcError('invalid_request', `${field}: expected ${expected}`, { field });
}
