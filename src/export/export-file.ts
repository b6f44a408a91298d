import { createWriteStream, renameSync, rmSync } from 'node:fs';
import type { Writable } from 'node:stream';

/**
 * Write an export to `path` through a private temporary file renamed into place at the end,
 * so a failed or interrupted export never leaves a partial file that looks complete.
 * Mode 0600: an export names actors, capabilities and amounts.
 */
export async function writeAtomically<T>(path: string, write: (out: Writable) => Promise<T>): Promise<T> {
  const partial = `${path}.partial-${process.pid}`;
  const out = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
  try {
    const result = await write(out);
    renameSync(partial, path);
    return result;
  } catch (err) {
    // The stream opens its file asynchronously: removing it before the open (and the close
    // that destroy queues after it) finishes would leave the file behind, created after.
    if (!out.closed) {
      await new Promise<void>((resolve) => {
        out.once('close', () => resolve());
        out.destroy();
      });
    }
    rmSync(partial, { force: true });
    throw err;
  }
}
