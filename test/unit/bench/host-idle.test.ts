import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeHostIdle, hostIdle } from '../../bench/host-idle.mjs';

const roots: string[] = [];

/** A sysfs-shaped tree holding `files` (path under /sys: content). */
function sysTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-sys-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const DRIVER = 'devices/system/cpu/cpuidle/current_driver';
const POLL_NS = 'module/haltpoll/parameters/guest_halt_poll_ns';

afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

describe('the bench’s host idle reader', () => {
  it('reads a KVM guest that halts an idle vCPU at once, and says what that does to the figures', () => {
    const idle = hostIdle(sysTree({ [DRIVER]: 'haltpoll\n', [POLL_NS]: '0\n' }));
    expect(idle).toEqual({ driver: 'haltpoll', haltPollNs: 0 });
    expect(describeHostIdle(idle)).toMatch(/guest_halt_poll_ns 0: an idle vCPU halts at once/);
  });

  it('reads how long a polling guest waits before it halts', () => {
    const idle = hostIdle(sysTree({ [DRIVER]: 'haltpoll\n', [POLL_NS]: '200000\n' }));
    expect(idle).toEqual({ driver: 'haltpoll', haltPollNs: 200000 });
    expect(describeHostIdle(idle)).toBe(
      'cpuidle driver haltpoll: an idle vCPU polls up to 200 us before it halts',
    );
  });

  it('names any other driver alone, and ignores a poll setting it cannot read as a count', () => {
    expect(hostIdle(sysTree({ [DRIVER]: 'intel_idle\n', [POLL_NS]: '0\n' }))).toEqual({
      driver: 'intel_idle',
    });
    const odd = hostIdle(sysTree({ [DRIVER]: 'haltpoll\n', [POLL_NS]: 'lots\n' }));
    expect(odd).toEqual({ driver: 'haltpoll' });
    expect(describeHostIdle(odd)).toBe('cpuidle driver haltpoll');
  });

  it('says it does not know where sysfs has no cpuidle driver', () => {
    expect(hostIdle(sysTree({}))).toBeUndefined();
    expect(hostIdle(sysTree({ [DRIVER]: '\n' }))).toBeUndefined();
    expect(describeHostIdle(undefined)).toBe('cpuidle driver unknown (nothing under /sys)');
  });

  it.runIf(existsSync(join('/sys', DRIVER)))('reads this machine’s own driver', () => {
    expect(hostIdle()?.driver).toMatch(/^\S+$/);
  });
});
