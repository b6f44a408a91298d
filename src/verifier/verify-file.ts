import { open, type FileHandle } from 'node:fs/promises';
import { SvcError } from '../core/errors.js';
import { nodeCrypto } from '../evidence/node-crypto.js';
import { verifyExport, type VerificationReport, type VerifyOptions } from '../evidence/verify/index.js';

/**
 * Read size. Larger chunks measured no faster and left RSS near 130 MiB (buffers outliving
 * their use until a full collection); 64 KiB keeps a 1,000,000-entry run under 80 MiB.
 */
const CHUNK = 64 * 1024;

/**
 * Verify an export file, streamed from disk. A file that cannot be read is the caller's
 * problem, not the file's verdict: it throws (the CLI exits 2), never a `fail`.
 */
export async function verifyFile(path: string, options: VerifyOptions): Promise<VerificationReport> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    throw unreadable(path, err);
  }
  try {
    return await verifyExport(
      handle.createReadStream({ highWaterMark: CHUNK, autoClose: false }),
      options,
      nodeCrypto,
    );
  } catch (err) {
    // A system error (EISDIR, EIO) is the file failing to read; anything else is a bug.
    if (err instanceof Error && 'syscall' in err) throw unreadable(path, err);
    throw err;
  } finally {
    await handle.close();
  }
}

function unreadable(path: string, err: unknown): SvcError {
  return new SvcError('usage', `cannot read ${path}: ${(err as Error).message}`, { cause: err });
}
