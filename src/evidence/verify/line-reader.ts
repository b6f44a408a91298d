import { concatBytes } from '../bytes.js';
import { MAX_LINE_BYTES } from '../export-line.js';

/** The export's bytes, in chunks of any size: a Node Readable, a web stream, an array. */
export type ExportSource = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/** One line as it is in the file, before any decoding, so §8's byte rules can be checked. */
export interface RawLine {
  /** 1-based. */
  number: number;
  /** The bytes without the terminating \n; empty when the line is too long. */
  bytes: Uint8Array;
  /** Byte length without the \n, also for a line too long to keep. */
  length: number;
  /** Ended by \n (false only for a last line with bytes after the final \n). */
  terminated: boolean;
  tooLong: boolean;
}

const NEWLINE = 0x0a;
const encoder = new TextEncoder();

/**
 * Split a byte stream into lines on \n without holding more than the current chunk and one
 * line (at most `maxLineBytes`) in memory; a longer line is skipped to its end and reported
 * as too long.
 * String chunks are encoded as UTF-8 first; bytes are the faithful input.
 */
export async function* readLines(
  source: ExportSource,
  maxLineBytes = MAX_LINE_BYTES,
): AsyncGenerator<RawLine> {
  let parts: Uint8Array[] = [];
  let length = 0;
  let number = 0;

  const take = (terminated: boolean): RawLine => {
    const tooLong = length > maxLineBytes;
    const line = {
      number: ++number,
      bytes: tooLong ? new Uint8Array(0) : parts.length === 1 ? parts[0]! : concatBytes(...parts),
      length,
      terminated,
      tooLong,
    };
    parts = [];
    length = 0;
    return line;
  };

  for await (const chunk of source) {
    // One copy per chunk, and lines as views into it: a producer may reuse its chunk buffer
    // after we resume it, and copying each line again would double the work.
    const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : new Uint8Array(chunk);
    let start = 0;
    while (start <= bytes.length) {
      const newline = bytes.indexOf(NEWLINE, start);
      const end = newline === -1 ? bytes.length : newline;
      if (end > start) {
        length += end - start;
        if (length <= maxLineBytes) parts.push(bytes.subarray(start, end));
        else parts = [];
      }
      if (newline === -1) break;
      yield take(true);
      start = newline + 1;
    }
  }
  if (length > 0) yield take(false);
}
