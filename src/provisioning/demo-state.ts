import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../core/errors.js';
import { checkPrivateFileMode, type DataDir } from '../store/data-dir.js';

/** A token the quickstart keeps so a re-run shows it again instead of minting another. */
export interface KeptToken {
  token_id: string;
  token: string;
}

/** What `svc quickstart` keeps in the data dir (mode 0600, like the signing keys beside it). */
export interface DemoState {
  admin: KeptToken;
  agent?: KeptToken;
  /** the demo's registrations were applied once; later runs leave them to the user */
  provisioned: boolean;
}

export const demoStateFile = (dir: DataDir): string => join(dir.root, 'quickstart.json');

function kept(v: unknown): KeptToken | undefined {
  const t = v as Partial<KeptToken> | undefined;
  return typeof t?.token_id === 'string' && typeof t.token === 'string'
    ? { token_id: t.token_id, token: t.token }
    : undefined;
}

/** The kept state, or undefined when this data dir was not made by `svc quickstart`. */
export function readDemoState(dir: DataDir): DemoState | undefined {
  const path = demoStateFile(dir);
  if (!existsSync(path)) return undefined;
  checkPrivateFileMode(path);
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new SvcError('unavailable', `${path} is not valid JSON: ${(err as Error).message}`, {
      remedy: `remove ${path} and the data dir around it to start the demo afresh`,
    });
  }
  const admin = kept(raw.admin);
  if (admin === undefined) {
    throw new SvcError('unavailable', `${path} does not hold the demo administrator's token`, {
      remedy: `remove ${path} and the data dir around it to start the demo afresh`,
    });
  }
  const agent = kept(raw.agent);
  return { admin, ...(agent ? { agent } : {}), provisioned: raw.provisioned === true };
}

/** Replace the state atomically: a private temp file, fsync, rename. */
export function writeDemoState(dir: DataDir, state: DemoState): void {
  const path = demoStateFile(dir);
  const tmp = `${path}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(state, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}
