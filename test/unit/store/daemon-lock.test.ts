import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDir } from '../../../src/store/data-dir.js';
import { daemonLockFile, daemonLockHolder, lockDaemonDir } from '../../../src/store/daemon-lock.js';
import { tmpDir } from '../../helpers/tmp.js';

describe("a data dir's daemon lock", () => {
  const tmp = tmpDir('svc-daemon-lock-');
  afterAll(() => tmp.cleanup());

  it('one holder at a time; released, the next one takes it', () => {
    const dir = new DataDir(tmp.path);
    const first = lockDaemonDir(dir);
    if (!('lock' in first)) throw new Error('the first claim must succeed');
    expect(readFileSync(daemonLockFile(dir), 'utf8')).toBe(`${process.pid}\n`);
    expect(lockDaemonDir(dir)).toEqual({ holder: process.pid });
    expect(daemonLockHolder(dir)).toBe(process.pid);
    first.lock.release();
    expect(existsSync(daemonLockFile(dir))).toBe(false);
    const second = lockDaemonDir(dir);
    expect('lock' in second).toBe(true);
    if ('lock' in second) second.lock.release();
  });

  it('a lock left by a killed daemon (its pid no longer runs) is taken over', () => {
    const dir = new DataDir(tmp.path);
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    writeFileSync(daemonLockFile(dir), `${gone}\n`);
    expect(daemonLockHolder(dir)).toBeUndefined();
    const claim = lockDaemonDir(dir);
    expect('lock' in claim).toBe(true);
    expect(readFileSync(daemonLockFile(dir), 'utf8')).toBe(`${process.pid}\n`);
    if ('lock' in claim) claim.lock.release();
  });

  it('a PostgreSQL data dir, shared by replicas on purpose, is never claimed', () => {
    const dir = new DataDir(tmp.path, 'postgres://svc@127.0.0.1:5432/svc');
    const a = lockDaemonDir(dir);
    const b = lockDaemonDir(dir);
    expect('lock' in a && 'lock' in b).toBe(true);
    expect(existsSync(daemonLockFile(dir))).toBe(false);
  });
});
