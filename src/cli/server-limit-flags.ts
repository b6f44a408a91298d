import { Flags } from '@oclif/core';
import { DEFAULT_SERVER_LIMITS, TIMEOUT_BOUNDS } from '../http/limits.js';
import { formatDuration, parseDuration } from '../core/duration.js';

const d = DEFAULT_SERVER_LIMITS;

/**
 * A time-out flag: text such as `10s`, checked (format and range) as it is read, so a value
 * from a configuration file or the environment is refused with its source named.
 */
const timeoutFlag = Flags.custom<string>({
  parse: async (input, _context, flag) => {
    parseDuration(flag.name, input, TIMEOUT_BOUNDS);
    return input;
  },
});

/** The flags of every listening command (`daemon start`, `console start`); parse with `serverLimits`. */
export const serverLimitFlags = {
  'header-timeout': timeoutFlag({
    summary: 'Close a connection whose request headers (or TLS handshake) take longer than this (1s to 1h).',
    default: formatDuration(d.headerTimeoutMs),
  }),
  'request-timeout': timeoutFlag({
    summary: 'Close a connection whose whole request, body included, takes longer than this (1s to 1h).',
    default: formatDuration(d.requestTimeoutMs),
  }),
  'idle-timeout': timeoutFlag({
    summary: 'Close a keep-alive connection idle between requests for this long (1s to 1h).',
    default: formatDuration(d.idleTimeoutMs),
  }),
  'max-connections': Flags.integer({
    summary: 'Refuse connections beyond this many open at once.',
    default: d.maxConnections,
    min: 1,
  }),
};
