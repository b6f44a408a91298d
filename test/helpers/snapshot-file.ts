import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The one way to rewrite a committed snapshot: on purpose, never because it is missing. */
export const UPDATE_SNAPSHOTS = process.env.SVC_UPDATE_SNAPSHOTS === '1';

/**
 * The committed snapshot at `file`, or with SVC_UPDATE_SNAPSHOTS=1 `now` written there first.
 * A missing snapshot is a failure: a check that writes its own expectation passes whatever
 * the code does.
 */
export function committedSnapshot(file: string, now: unknown, how: string): unknown {
  if (UPDATE_SNAPSHOTS) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(now, null, 2) + '\n');
  }
  if (!existsSync(file)) {
    throw new Error(`${file} is missing: create it on purpose with ${how}, review it and commit it`);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
}
