import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataDir } from './data-dir.js';

/** A data dir's claim on being served by this process, released when the daemon stops. */
export interface DaemonLock {
  release(): void;
}

/** Either this process now holds the data dir, or the process that does. */
export type DaemonLockResult = { lock: DaemonLock } | { holder: number };

export const daemonLockFile = (dir: DataDir): string => join(dir.root, 'daemon.lock');

/**
 * Claim a SQLite data dir for one daemon. Two daemons on one data dir each rewrite
 * `daemon.json`, so the one that stops first leaves discovery pointing at a dead port.
 * The claim is a file created atomically (a link, which fails when the name exists) that
 * names the holder's pid; a file whose pid no longer runs was left by a killed daemon and
 * is taken over. A PostgreSQL data dir is shared by replicas on purpose: it is never claimed.
 */
export function lockDaemonDir(dir: DataDir): DaemonLockResult {
  if (dir.onPostgres) return { lock: { release: () => undefined } };
  const file = daemonLockFile(dir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${process.pid}\n`, { mode: 0o644 });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        linkSync(tmp, file);
        return { lock: { release: () => releaseIfOurs(file) } };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = daemonLockHolder(dir);
      if (holder !== undefined) return { holder };
      rmSync(file, { force: true });
    }
    const holder = daemonLockHolder(dir);
    return holder !== undefined ? { holder } : { holder: 0 };
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** The pid of the running daemon that holds the data dir, or undefined when none does. */
export function daemonLockHolder(dir: DataDir): number | undefined {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(daemonLockFile(dir), 'utf8'), 10);
  } catch {
    return undefined;
  }
  return Number.isSafeInteger(pid) && pid > 0 && running(pid) ? pid : undefined;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseIfOurs(file: string): void {
  try {
    if (Number.parseInt(readFileSync(file, 'utf8'), 10) === process.pid) rmSync(file, { force: true });
  } catch {
    // already gone
  }
}
