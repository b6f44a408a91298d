// Waiting for a child process (a daemon, the bare server) to say it is up.

/** How long a benchmark waits for a child to say it is up: a daemon starts in well under a second. */
export const WAIT_FOR_MS = 120_000;

/**
 * The first capture group of `re` in `child`'s stdout and stderr. Rejects with what the child
 * printed if it exits first, or if `ms` pass without a match: a child that never comes up
 * fails the run instead of stalling it.
 */
export function waitFor(child, re, ms = WAIT_FOR_MS) {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => {
      reject(new Error(`no match for ${re} after ${ms} ms; the child printed: ${buf}`));
    }, ms);
    const onData = (d) => {
      buf += d.toString();
      const m = re.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    // 'close', not 'exit': only then has all the child printed been read.
    child.on('close', (c) => {
      clearTimeout(timer);
      reject(new Error(`exited ${c}: ${buf}`));
    });
  });
}
