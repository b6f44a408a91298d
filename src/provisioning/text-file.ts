import { readBoundedText } from '../io/bounded-file.js';

/**
 * Read an operator's input file (a policy, a deployment document) as UTF-8. Bounded so a
 * wrong path (a log, a disk image, /dev/zero, a FIFO) fails at once instead of filling memory.
 */
export function readTextFile(field: string, path: string, maxBytes = 1 << 20): string {
  return readBoundedText(field, path, maxBytes);
}
