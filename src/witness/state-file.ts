import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { SvcError } from '../core/errors.js';
import type { TreeHead } from '../evidence/tree-head.js';

/** What a witness remembers: per log, the last head it cosigned. */
export interface WitnessState {
  version: 1;
  logs: Record<string, TreeHead>;
}

/**
 * Read the state file. Absent means a new witness; anything unreadable refuses to start:
 * silently starting empty would let a log roll back past what this witness already
 * cosigned.
 */
export function loadWitnessState(file: string): WitnessState {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      // Found out now, not at the first cosignature: the state must be writable where it is asked to be.
      if (!existsSync(dirname(file))) {
        throw new SvcError('usage', `--state ${file}: the directory ${dirname(file)} does not exist`, {
          field: 'state',
        });
      }
      return { version: 1, logs: {} };
    }
    throw new SvcError('unavailable', `cannot read the witness state ${file}: ${(err as Error).message}`);
  }
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    throw corrupt(file, 'it is not JSON');
  }
  const s = state as Partial<WitnessState> | null;
  if (
    s === null ||
    typeof s !== 'object' ||
    s.version !== 1 ||
    typeof s.logs !== 'object' ||
    s.logs === null
  ) {
    throw corrupt(file, 'expected {"version": 1, "logs": {...}}');
  }
  for (const [logId, head] of Object.entries(s.logs)) {
    if (
      head?.log_id !== logId ||
      !Number.isSafeInteger(head.tree_size) ||
      typeof head.root_hash !== 'string'
    ) {
      throw corrupt(file, `the head of ${logId} is not a tree head of that log`);
    }
  }
  return s as WitnessState;
}

function corrupt(file: string, why: string): SvcError {
  return new SvcError('unavailable', `the witness state ${file} is unusable: ${why}`, {
    remedy: 'restore it from a backup; starting without it would let a log roll back past what was cosigned',
  });
}

/**
 * Replace the state file atomically and durably: write a temporary file, fsync it, rename
 * it over the old one, fsync the directory. A crash leaves the old state or the new one,
 * never a torn file, and a cosignature is only returned after this completes.
 */
export function saveWitnessState(file: string, state: WitnessState): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(state, null, 2) + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  const dir = openSync(dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
