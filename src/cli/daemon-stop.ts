import { formatDuration } from '../core/duration.js';
import { counted } from './plural.js';

/** What a stop needs of a running listener (the daemon's `RunningDaemon`). */
export interface Drainable {
  /** stop accepting, let in-flight requests finish, close the store */
  close(): Promise<void>;
  /** destroy every connection now; how many requests were cut off */
  stopHard(): number;
}

/**
 * After the first stop signal: drain, unless a second signal or the deadline comes first,
 * then stop hard. Undefined when the drain finished; else the line that says why and how
 * many requests were cut off (none of them was acknowledged: a decision is durable before
 * its answer).
 */
export async function drainOrStopHard(
  daemon: Drainable,
  secondSignal: Promise<NodeJS.Signals>,
  deadlineMs: number,
): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the stop deadline (${formatDuration(deadlineMs)}) passed`), deadlineMs);
  });
  const hard = await Promise.race([
    daemon.close().then(() => undefined),
    secondSignal.then((s) => `a second ${s}`),
    deadline,
  ]);
  clearTimeout(timer);
  if (hard === undefined) return undefined;
  return `stopped hard (${hard}): ${counted(daemon.stopHard(), 'request', 'requests')} cut off`;
}
