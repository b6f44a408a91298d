import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ownerAlive, thisProcess } from '../../../src/store/sqlite/execution-owner.js';

describe('who may still finish a pending brokered call', () => {
  const self = thisProcess();
  // a pid that certainly ended: a child that has exited and been reaped
  const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;

  it('this store instance, and another live process, are alive', () => {
    expect(ownerAlive(self, { pid: self.pid, instance: self.instance })).toBe(true);
    expect(ownerAlive(self, { pid: process.ppid, instance: 'dmn_other' })).toBe(true);
  });

  it('an ended process, this pid under an earlier instance, and an unrecorded owner are dead', () => {
    expect(ownerAlive(self, { pid: deadPid, instance: 'dmn_gone' })).toBe(false);
    expect(ownerAlive(self, { pid: self.pid, instance: 'dmn_predecessor' })).toBe(false);
    expect(ownerAlive(self, { pid: null, instance: null })).toBe(false);
  });

  it('each open of the store is its own instance', () => {
    expect(thisProcess().instance).not.toBe(thisProcess().instance);
  });
});
