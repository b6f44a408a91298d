import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { SvcError, type ErrorKind } from '../core/errors.js';

/** A PEM certificate, CA bundle or key file: a system CA bundle is about 200 KiB. */
export const MAX_PEM_FILE = 1024 * 1024;

/** How much one read asks for: a small file takes one read, a large one never more than this at once. */
const CHUNK = 64 * 1024;

// O_NONBLOCK: opening a FIFO that has no writer returns at once (and is then refused as not
// a regular file) instead of waiting forever; it changes nothing for a regular file.
// O_NOCTTY: naming a terminal never makes it the process's controlling terminal.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * How a refusal is coded: by default a missing file is `not_found` and any other refusal
 * `invalid_request`; a caller whose command treats every bad path as a usage mistake (the
 * verifier's exit codes) passes `code`, and may add a `remedy`.
 */
export interface BoundedReadOptions {
  code?: ErrorKind;
  remedy?: string;
}

function refusal(o: BoundedReadOptions, field: string, reason: string, missing = false): SvcError {
  const code = o.code ?? (missing ? 'not_found' : 'invalid_request');
  return new SvcError(code, `${field}: ${reason}`, {
    field,
    ...(o.remedy !== undefined ? { remedy: o.remedy } : {}),
  });
}

/**
 * Read an operator's input file whole, bounded: the opened descriptor is checked (fstat, so
 * what is checked is what is read) to be a regular file no larger than `maxBytes`, then at
 * most `maxBytes + 1` bytes are read, so a file that grows after the check is refused too.
 * `/dev/zero`, a FIFO, a directory or a disk image fail at once with `field` named, instead
 * of filling memory or never returning.
 */
export function readBoundedFile(
  field: string,
  path: string,
  maxBytes: number,
  o: BoundedReadOptions = {},
): Buffer {
  const tooLarge = () => refusal(o, field, `${path} is larger than ${maxBytes} bytes, the limit for it`);
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOENT') throw refusal(o, field, `${path} does not exist`, true);
    throw refusal(o, field, `cannot read ${path} (${code ?? String(err)})`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      throw refusal(o, field, `${path} is ${kindOf(st)}, not a regular file`);
    }
    if (st.size > maxBytes) throw tooLarge();
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const want = Math.min(CHUNK, maxBytes + 1 - total);
      const chunk = Buffer.allocUnsafe(want);
      let n: number;
      try {
        n = readSync(fd, chunk, 0, want, null);
      } catch (err) {
        const code = (err as { code?: string }).code;
        throw refusal(o, field, `cannot read ${path} (${code ?? String(err)})`);
      }
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) throw tooLarge();
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** The same, as UTF-8 text: a byte-order mark is dropped; anything not UTF-8 is refused, never replaced. */
export function readBoundedText(
  field: string,
  path: string,
  maxBytes: number,
  o: BoundedReadOptions = {},
): string {
  const bytes = readBoundedFile(field, path, maxBytes, o);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw refusal(o, field, `${path} is not UTF-8 text`);
  }
}
