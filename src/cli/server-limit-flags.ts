import { Flags } from '@oclif/core';
import { DEFAULT_SERVER_LIMITS } from '../http/limits.js';
import { formatDuration } from '../core/duration.js';

const d = DEFAULT_SERVER_LIMITS;

/** The flags of every listening command (`daemon start`, `console start`); parse with `serverLimits`. */
export const serverLimitFlags = {
  'header-timeout': Flags.string({
    summary: 'Close a connection whose request headers (or TLS handshake) take longer than this (1s to 1h).',
    default: formatDuration(d.headerTimeoutMs),
  }),
  'request-timeout': Flags.string({
    summary: 'Close a connection whose whole request, body included, takes longer than this (1s to 1h).',
    default: formatDuration(d.requestTimeoutMs),
  }),
  'idle-timeout': Flags.string({
    summary: 'Close a keep-alive connection idle between requests for this long (1s to 1h).',
    default: formatDuration(d.idleTimeoutMs),
  }),
  'max-connections': Flags.integer({
    summary: 'Refuse connections beyond this many open at once.',
    default: d.maxConnections,
    min: 1,
  }),
};
