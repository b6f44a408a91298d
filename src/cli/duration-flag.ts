import { Flags } from '@oclif/core';
import { parseDuration } from '../core/duration.js';

/**
 * A duration flag (90d, 12h, 30m, 45s) parsed once, as the flag is read, into milliseconds
 * within `bounds`; a bad value is refused naming the flag and the range it takes.
 */
export function durationFlag(bounds: { minMs: number; maxMs: number }) {
  return Flags.custom<number>({
    parse: async (input, _context, flag) => parseDuration(flag.name, input, bounds),
  });
}
