import { SvcError } from '../core/errors.js';

/**
 * The one place a coded error becomes a process exit code. Scripts can rely on these:
 * 0 success, 1 failure, 2 bad usage or input, 3 not found / not initialised,
 * 4 already exists / conflict, 5 authentication or permission refused, 6 unavailable.
 */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  notFound: 3,
  conflict: 4,
  refused: 5,
  unavailable: 6,
  /** a policy text that does not validate (issue 27: `svc policy test`, `svc policy shadow set`) */
  policyInvalid: 3,
} as const;

const BY_KIND: Record<SvcError['kind'], number> = {
  invalid_request: EXIT.usage,
  usage: EXIT.usage,
  payload_too_large: EXIT.usage,
  unauthenticated: EXIT.refused,
  forbidden: EXIT.refused,
  not_found: EXIT.notFound,
  not_initialized: EXIT.notFound,
  conflict: EXIT.conflict,
  already_exists: EXIT.conflict,
  unavailable: EXIT.unavailable,
  internal: EXIT.failure,
};

export function exitCodeFor(err: SvcError): number {
  if (err.code === 'policy_invalid') return EXIT.policyInvalid;
  return BY_KIND[err.kind];
}

/** oclif's own parse failures (unknown flag, missing value) are usage errors. */
export function asSvcError(err: unknown): SvcError {
  if (err instanceof SvcError) return err;
  const e = err as { message?: string; oclif?: { exit?: number }; name?: string };
  const message = (e.message ?? String(err))
    .split('\nSee more help with')[0]!
    .replace(/^The following errors? occurred:\s*/, '')
    .trim();
  if (
    e.oclif?.exit === 2 ||
    /^(Unexpected argument|Nonexistent flag|Missing required|Expected --|Parsing --|Expected an?)/.test(
      message,
    )
  ) {
    // No remedy here: the command adds one naming its own --help (cli/remedies.ts).
    return new SvcError('usage', message);
  }
  return new SvcError('internal', message, { cause: err });
}
