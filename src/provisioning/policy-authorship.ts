import type { PolicyAuthorship } from '../core/policy-version.js';
import { osUserName } from './os-user.js';
import { checkText } from './references.js';

/** How long a `--message` may be: a line or two, like a commit's subject. */
export const MAX_MESSAGE = 500;

/** The `--message` of a policy change: bounded, well-formed text; empty is none. */
export function checkMessage(message: string | undefined): string | null {
  const text = message?.trim();
  return checkText('message', text === '' ? undefined : text, MAX_MESSAGE);
}

/** Who the history records for a change made from this machine's CLI, with its message. */
export function operatorAuthorship(message: string | null): PolicyAuthorship {
  return { setBy: osUserName(), message };
}
