// The CPU time of a process's main thread, which the comparison reports per decision: in
// the daemon that thread runs the event loop, SQLite and the decision, the one queue every
// request passes through.
import { readFileSync } from 'node:fs';

/**
 * CPU seconds (user and system) the main thread of process `pid` has used, from Linux's
 * /proc, whose counts are in USER_HZ ticks (100 a second on Linux); undefined where there
 * is no /proc or no such process.
 */
export function mainThreadCpu(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds used between two readings, or undefined if either is. */
export const cpuSince = (before, after) =>
  before === undefined || after === undefined ? undefined : after - before;

/** `used` CPU seconds spread over `decisions`, in microseconds; undefined without a reading. */
export const perDecisionUs = (used, decisions) =>
  used === undefined || !decisions ? undefined : (used * 1e6) / decisions;
