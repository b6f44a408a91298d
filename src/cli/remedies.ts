import { SvcError } from '../core/errors.js';

/**
 * What to do next when the failure itself named nothing better: every error the CLI prints
 * carries a remedy, and a remedy names a command to run rather than an HTTP route.
 */
function fallback(err: SvcError, commandId: string | undefined, known: readonly string[]): string {
  // oclif ids are `task:list`; users type `svc task list`.
  const help = commandId ? `run \`svc ${commandId.replaceAll(':', ' ')} --help\`` : 'run `svc --help`';
  switch (err.kind) {
    case 'usage':
    case 'invalid_request':
    case 'payload_too_large':
      return err.field ? `correct ${err.field}; ${help} for what each flag takes` : `${help} for the usage`;
    case 'unauthenticated':
      return 'check SVC_TOKEN: an operator issues one with `svc token issue --tenant <tenant> --actor <you>`';
    case 'forbidden':
      return 'ask an administrator for the role this needs (`svc actor list --tenant <tenant>` shows roles)';
    case 'not_found':
      return `check the id and the tenant: ${listCommand(err, commandId, known)} shows what exists`;
    case 'not_initialized':
      return 'run `svc init`, or point --data-dir (or SVC_HOME) at an initialised data dir';
    case 'conflict':
    case 'already_exists':
      return `read the current state back (${listCommand(err, commandId, known)}) before changing it`;
    case 'unavailable':
      // `svc store …` talks to the database itself: no daemon, so no daemon log, is involved.
      return commandId?.startsWith('store:')
        ? 'check the database URL (--to, --store or SVC_STORE) and that the PostgreSQL server there is running and accepts connections'
        : 'try again shortly; if it persists, check the daemon log';
    case 'internal':
      return 'run it again with SVC_DEBUG=1 for the stack trace, and report it';
  }
}

/** A command the user can run to see what exists: a literal `svc … list` is not one. */
function listCommand(err: SvcError, commandId: string | undefined, known: readonly string[]): string {
  // oclif ids are `task:show`; the list beside it is `task:list`, typed `svc task list`
  const list = `${commandId?.split(':')[0] ?? ''}:list`;
  if (err.field !== 'tenant' && commandId?.includes(':') && known.includes(list)) {
    return `\`svc ${list.replace(':', ' ')}\``;
  }
  return '`svc tenant list`';
}

/** The error as printed: the same code, reason and field, and always a remedy. */
export function withRemedy(
  err: SvcError,
  commandId: string | undefined,
  known: readonly string[] = [],
): SvcError {
  if (err.remedy !== undefined) return err;
  return new SvcError(err.kind, err.reason, {
    code: err.code,
    remedy: fallback(err, commandId, known),
    ...(err.field !== undefined ? { field: err.field } : {}),
    cause: err.cause ?? err,
  });
}
