import { newId } from '../../core/ids.js';

/**
 * The daemon process that holds a brokered call open. Several daemons may share one data
 * dir (SQLite arbitrates the writes), so a daemon starting up must tell the calls a dead
 * process left pending from the calls another live daemon is making right now: only the
 * first are interrupted. SQLite files are shared on one host only, so a process id names
 * a process; the instance id tells a restarted daemon from its predecessor when both get
 * the same pid (a container's PID 1).
 */
export interface ExecutionOwner {
  pid: number;
  instance: string;
}

export function thisProcess(): ExecutionOwner {
  return { pid: process.pid, instance: newId('dmn') };
}

/**
 * Whether the owner of a pending execution may still finish it. Unknown owners (rows
 * written before owners were recorded) and this pid under another instance are dead. A
 * pid that exists is taken as alive even if the system reused it: the row then waits for
 * a later start-up instead of being judged while its call may still be open.
 */
export function ownerAlive(
  self: ExecutionOwner,
  owner: { pid: number | null; instance: string | null },
): boolean {
  if (owner.instance === self.instance) return true;
  if (owner.pid === null || owner.pid === self.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
  }
}
