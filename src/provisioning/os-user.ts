import { userInfo } from 'node:os';

/**
 * The OS account this process runs as. A CLI command that writes the data dir opens it
 * directly, with no token and no sign-in, so this account is who the machine can name for
 * the change (as it is for the file's owner and the shell's history).
 */
export function osUserName(): string {
  try {
    const name = userInfo().username;
    if (name !== '') return name;
  } catch {
    // No passwd entry for the uid (a container started with --user): the uid is what is known.
  }
  return `uid:${process.getuid?.() ?? 'unknown'}`;
}
