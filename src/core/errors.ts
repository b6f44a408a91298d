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

export type ErrorCode = (typeof ERROR_CODES)[number] | (string & { readonly __extension?: never });

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
    opts: { remedy?: string; field?: string; code?: string; cause?: unknown } = {},
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
