// How this machine's idle CPUs wait, printed beside the comparison's latency figures. On a
// KVM guest whose haltpoll cpuidle driver polls for 0 ns, an idle vCPU halts at once, and
// the request that wakes it runs on a cold CPU: at half the peak and at one connection the
// daemon's thread idles between requests, so that setting can move those figures
// (README, Latency on a virtual machine).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function read(file) {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * The cpuidle driver under `sys` (normally /sys) and, under haltpoll, how many ns an idle
 * vCPU polls before it halts; undefined where sysfs says nothing.
 */
export function hostIdle(sys = '/sys') {
  const driver = read(join(sys, 'devices/system/cpu/cpuidle/current_driver'));
  if (!driver) return undefined;
  const ns = read(join(sys, 'module/haltpoll/parameters/guest_halt_poll_ns'));
  return driver === 'haltpoll' && ns !== undefined && /^\d+$/.test(ns)
    ? { driver, haltPollNs: Number(ns) }
    : { driver };
}

/** One line for the report. */
export function describeHostIdle(idle) {
  if (!idle) return 'cpuidle driver unknown (nothing under /sys)';
  if (idle.haltPollNs === undefined) return `cpuidle driver ${idle.driver}`;
  if (idle.haltPollNs === 0) {
    return 'cpuidle driver haltpoll with guest_halt_poll_ns 0: an idle vCPU halts at once (README: Latency on a virtual machine)';
  }
  return `cpuidle driver haltpoll: an idle vCPU polls up to ${idle.haltPollNs / 1000} us before it halts`;
}
