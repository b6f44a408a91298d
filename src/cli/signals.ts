/** Resolve on the first SIGTERM or SIGINT; a second one while stopping exits at once. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      process.once('SIGINT', () => process.exit(130));
      resolve(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

/** The daemon's stop: the first SIGTERM or SIGINT drains; a second one stops hard. */
export interface StopSignals {
  first: Promise<NodeJS.Signals>;
  second: Promise<NodeJS.Signals>;
}

/** Listen for SIGTERM and SIGINT from now on (call before anything starts, so none is lost). */
export function stopSignals(): StopSignals {
  let seen = 0;
  let onFirst!: (s: NodeJS.Signals) => void;
  let onSecond!: (s: NodeJS.Signals) => void;
  const first = new Promise<NodeJS.Signals>((r) => (onFirst = r));
  const second = new Promise<NodeJS.Signals>((r) => (onSecond = r));
  const onSignal = (signal: NodeJS.Signals) => (seen++ === 0 ? onFirst(signal) : onSecond(signal));
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return { first, second };
}

/**
 * SIGHUP handled from now on: Node's default for it is to exit, and a reload must never stop
 * the process. Until `attach`, a SIGHUP is noted and dropped (whatever starts next reads its
 * files then); after it, each SIGHUP runs the handler, one at a time, in order.
 */
export function reloadSignal(onEarly: () => void): { attach: (handler: () => Promise<void>) => void } {
  let handler: (() => Promise<void>) | undefined;
  let queue = Promise.resolve();
  process.on('SIGHUP', () => {
    const h = handler;
    if (h === undefined) {
      onEarly();
      return;
    }
    queue = queue.then(h).catch(() => undefined);
  });
  return { attach: (h) => (handler = h) };
}
